import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { publicPage } from '../../http/public-pages.ts';
import type { LinksService } from './service.ts';
import { type ViewerRoutesOptions, viewerHttp } from './viewer.http.ts';
import { downloadHandler, pageImageHandler } from './viewer.routes.ts';

const docParams = Type.Object({ token: Type.String(), fileId: Type.String({ maxLength: 200 }) });

/**
 * A room link's documents in the public viewer (docs/rooms.md): each document's page viewer, its
 * page images and its original, under the room link; each request checks that the file is one of
 * the room's documents (else the same 404 page as an unknown link). The room's own page is `/l/{token}`.
 */
export function roomViewerRoutes(fastify: FastifyInstance, links: Pick<LinksService, 'viewer'>, opts: ViewerRoutesOptions) {
  const http = viewerHttp(fastify, opts);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/l/:token/doc/:fileId',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          "A data room's document",
          "A document of a room link (a link of type 4): HTML, the file viewer of a file link, its beacons naming the document (`doc`). The 404 page when the file is not one of the room's documents; the link's passcode and e-mail gate come first, as for the room.",
        ),
        params: docParams,
      },
    },
    async (request, reply) => {
      await http.countViewer(request, reply);
      const visitor = await http.visitorOf(request, reply);
      const { token, fileId } = request.params;
      return http.render(reply, await links.viewer.viewer(token, visitor, request.method === 'HEAD', fileId), request.query);
    },
  );

  app.get(
    '/l/:token/doc/:fileId/page/:n',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          "A data room's document page image",
          "Page `n` (from 1) of a document of a room link, as `/l/{token}/page/{n}` answers a file link's (watermarked when the link has `watermark`): the 404 page when the link is closed or locked, or the file is not one of the room's documents.",
        ),
        params: Type.Object({ token: Type.String(), fileId: Type.String({ maxLength: 200 }), n: Type.String() }),
      },
    },
    pageImageHandler(links.viewer, http),
  );

  app.get(
    '/l/:token/doc/:fileId/download',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          "Download a data room's document",
          "A document of a room link, as `/l/{token}/download` answers a file link's: the original, or with `watermark` a PDF of its watermarked pages, when the link has `allow_download`; otherwise the 404 page.",
        ),
        params: docParams,
      },
    },
    downloadHandler(links.viewer, http),
  );
}
