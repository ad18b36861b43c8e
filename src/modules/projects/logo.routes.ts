import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { FailureEnvelope, businessResponses, ok } from '../../http/envelope.ts';
import { publicPage } from '../../http/public-pages.ts';
import { receivedFile, uploadRoute } from '../../http/upload.ts';
import { LOGO_MAX_BYTES, type ProjectLogos } from './logo.service.ts';
import { AppIdParams } from './schemas.ts';

const tags = ['Projects'];

const Logo = Type.Object({
  url: Type.Union([Type.String(), Type.Null()], { description: "The logo's public address; null when the project has none" }),
  contentType: Type.Union([Type.String(), Type.Null()]),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes' }),
});

/** How long browsers and proxies keep a logo: its address changes with each upload. */
const LOGO_MAX_AGE_S = 365 * 24 * 3600;

/** A project's logo (docs/projects.md, "Logo"): beyond the interface; the public viewer shows it. */
export async function logoRoutes(fastify: FastifyInstance, opts: { logos: ProjectLogos }): Promise<void> {
  const { logos } = opts;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const manager = { config: { project: 'manager' as const } };

  app.get(
    '/api/v1.7/app/:appId/logo',
    {
      ...manager,
      schema: { tags, summary: "The project's logo (Master/Admin)", params: AppIdParams, response: businessResponses(Logo) },
    },
    async (request) => ok(await logos.get(actorOf(request))),
  );

  const upload = uploadRoute(logos.upload, { fields: 2, fieldBytes: 1024 });
  app.post(
    '/api/v1.7/app/:appId/logo',
    {
      ...upload,
      config: { ...upload.config, ...manager.config },
      schema: {
        tags,
        summary: "Upload the project's logo (Master/Admin): a PNG or JPEG",
        description: `The multipart/form-data field \`file\`: a PNG or JPEG (by its bytes; SVG is refused) of at most ${LOGO_MAX_BYTES} bytes and 4096 pixels a side, else \`invalid_file\`. Replaces the logo before; the project's \`iconURL\` becomes it.`,
        consumes: ['multipart/form-data'],
        params: AppIdParams,
        response: { ...businessResponses(Logo), 408: FailureEnvelope, 411: FailureEnvelope },
      },
    },
    async (request) => ok(await logos.set(actorOf(request), receivedFile(request))),
  );

  app.delete(
    '/api/v1.7/app/:appId/logo',
    {
      ...manager,
      bodyLimit: BODY_LIMITS.small,
      schema: { tags, summary: "Remove the project's logo (Master/Admin)", params: AppIdParams, response: businessResponses(Logo) },
    },
    async (request) => ok(await logos.remove(actorOf(request))),
  );

  app.get(
    '/logo/:appId/:token',
    {
      config: { project: 'none', limitBy: 'ip', shareHost: 'appId' },
      schema: {
        ...publicPage(
          "A project's logo",
          'The image at the address the logo answer gives (the viewer shows it): immutable, as its address changes with each upload. 404 for any other address.',
        ),
        params: Type.Object({ appId: Type.String(), token: Type.String() }),
      },
    },
    async (request, reply) => {
      const image = await logos.image(request.params.appId, request.params.token);
      if (image === null) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      return reply
        .type(image.contentType)
        .header('Cache-Control', `public, max-age=${LOGO_MAX_AGE_S}, immutable`)
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Robots-Tag', 'noindex')
        .send(image.bytes);
    },
  );
}
