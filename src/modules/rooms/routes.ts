import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { Room, RoomBody, RoomParams, RoomsQuery } from './schemas.ts';
import type { ItemInput, RoomInput, RoomsServices } from './service.ts';

const tags = ['Data rooms'];

/** The body as the service takes it (the schema checked its shape, folders at most 4 deep). */
const input = (body: { name?: string | undefined; items?: unknown }): RoomInput => ({
  name: body.name,
  items: body.items as ItemInput[] | undefined,
});

/** Data rooms (docs/rooms.md): members make them and change theirs; a link of type 4 shares one. */
export async function roomsRoutes(fastify: FastifyInstance, opts: { rooms: RoomsServices }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { api } = opts.rooms;

  app.post(
    '/api/v1.7/app/:appId/rooms',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: 'Make a data room (any member; it is theirs): a name and, optionally, its tree of folders and files',
        description:
          'Answers the Room. name_required, name_invalid (over 255 characters), items_invalid (a folder without a name, a file twice, ' +
          'over 500 items), file_not_found (a file id that is not a file of the project). Share it with a link of type 4 (room_id).',
        params: AppIdParams,
        body: RoomBody,
        response: businessResponses(Room),
      },
    },
    async (request) => ok(await api.create(actorOf(request), input(request.body))),
  );

  app.get(
    '/api/v1.7/app/:appId/rooms',
    {
      schema: {
        tags,
        summary: "The project's data rooms (Master, Admin; Sales: their own), newest first",
        params: AppIdParams,
        querystring: RoomsQuery,
        response: businessResponses(Type.Array(Room)),
      },
    },
    async (request) => ok(await api.list(actorOf(request), page(request.query))),
  );

  app.get(
    '/api/v1.7/app/:appId/room/:roomId',
    {
      schema: {
        tags,
        summary: 'A data room with its tree (Master, Admin: any; Sales: their own, else room_not_found)',
        params: RoomParams,
        response: businessResponses(Room),
      },
    },
    async (request) => ok(await api.get(actorOf(request), request.params.roomId)),
  );

  app.put(
    '/api/v1.7/app/:appId/room/:roomId',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: 'Change a data room (Master, Admin: any; Sales: their own): the name, and the tree, replaced whole, when given',
        description: 'Answers the Room. room_not_found, and the create call codes. Its links show the new tree at once.',
        params: RoomParams,
        body: RoomBody,
        response: businessResponses(Room),
      },
    },
    async (request) => ok(await api.update(actorOf(request), { roomId: request.params.roomId, input: input(request.body) })),
  );

  app.delete(
    '/api/v1.7/app/:appId/room/:roomId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Delete a data room (Master, Admin: any; Sales: their own): its links are disabled (410), their views stay',
        params: RoomParams,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await api.remove(actorOf(request), { roomId: request.params.roomId })),
  );
}
