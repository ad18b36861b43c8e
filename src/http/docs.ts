import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * OpenAPI 3.1 generated from the route schemas, served at /openapi.json, and an interactive
 * reference at /docs whose assets are served by this server (works with no internet).
 */
export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rapport API',
        version,
        description:
          'Sales-engagement server. Business responses use the envelope {status, data}; failures are HTTP 200 ' +
          '{status: 0, code, msg}. Authentication: `Authorization: Bearer <access_token>` or the access_token query parameter.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client id and secret (token and register calls)' },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  // The reference is static and holds no data: not rate limited. Its page loads only its own
  // scripts and styles, so the server's content security policy (src/app.ts) covers it; the
  // online validator badge (an image from validator.swagger.io) is off.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, limitBy: 'none' };
    });
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null } });
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none', limitBy: 'none' } }, async () => app.swagger());
}
