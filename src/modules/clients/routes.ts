import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { failure, forbidden } from '../../http/errors.ts';
import { CONSOLE_CLIENT_ID, type ClientsService } from './service.ts';

const tags = ['Administration'];

const Client = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  revoked: Type.Boolean(),
  console: Type.Boolean({ description: "the web console's own public client (revoking it ends every console session)" }),
});

/**
 * The server's OAuth clients, for its administrators (ADMIN_USER_IDS, or marked on their account): the same service the CLI's
 * `rapport client …` uses. Anyone else gets 403 forbidden, whatever their projects.
 */
export async function clientsRoutes(
  fastify: FastifyInstance,
  opts: { clients: ClientsService; adminUserIds: readonly number[] },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { clients, adminUserIds } = opts;
  // A server administrator: named by ADMIN_USER_IDS, or marked on the account (the first account, `rapport user create --admin`).
  const isAdmin = (user: { id: number; server_admin: number }) => user.server_admin === 1 || adminUserIds.includes(user.id);
  const admin = (user: { id: number; server_admin: number }) => {
    if (!isAdmin(user)) throw forbidden('only the server administrators manage OAuth clients');
  };

  app.get(
    '/api/v1.7/admin/me',
    {
      schema: {
        tags,
        summary:
          'Whether the caller is one of the server administrators (ADMIN_USER_IDS, the first account, `rapport user create --admin`): any signed-in user may ask (beyond the interface)',
        description:
          'The console shows the administration pages to those for whom `admin` is true, without probing a route that refuses the others.',
        response: businessResponses(Type.Object({ admin: Type.Boolean() })),
      },
    },
    async (request) => ok({ admin: isAdmin(request.user) }),
  );

  app.get(
    '/api/v1.7/admin/clients',
    {
      schema: {
        tags,
        summary: "The server's OAuth clients (administrators only; beyond the interface)",
        response: businessResponses(Type.Array(Client)),
      },
    },
    async (request) => {
      admin(request.user);
      return ok((await clients.list()).map((c) => ({ ...c, console: c.client_id === CONSOLE_CLIENT_ID })));
    },
  );

  app.post(
    '/api/v1.7/admin/clients',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Create an OAuth client (administrators only): the secret is in this answer only',
        description:
          "A generated `client_id` and `client_secret`, or the ones given (to carry over a partner's credentials). Failures: " +
          "client_name_invalid, client_id_invalid (format, the console's id, or in use, revoked ones included), client_secret_invalid.",
        body: Type.Object({
          name: Type.String({ maxLength: 1000 }),
          client_id: Type.Optional(Type.String({ maxLength: 1000 })),
          client_secret: Type.Optional(Type.String({ maxLength: 1000 })),
        }),
        response: businessResponses(Type.Object({ client_id: Type.String(), client_secret: Type.String() })),
      },
    },
    async (request) => {
      admin(request.user);
      const { name, client_id, client_secret } = request.body;
      return ok(
        await clients.create(name, {
          ...(client_id !== undefined && client_id !== '' ? { clientId: client_id } : {}),
          ...(client_secret !== undefined && client_secret !== '' ? { clientSecret: client_secret } : {}),
        }),
      );
    },
  );

  app.delete(
    '/api/v1.7/admin/clients/:clientId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Revoke an OAuth client and every token issued through it (administrators only)',
        params: Type.Object({ clientId: Type.String({ maxLength: 200 }) }),
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => {
      admin(request.user);
      if (!(await clients.revoke(request.params.clientId))) throw failure('client_not_found');
      return ok(true as const);
    },
  );
}
