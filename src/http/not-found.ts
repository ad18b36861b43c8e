import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { closeIfBodyUnread } from './error-handler.ts';

const page = (more: string) => `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>404 Not Found</title></head>
<body>
<h1>404 Not Found</h1>
<p>The requested URI does not exist on this server.${more}</p>
</body>
</html>
`;
const PAGE = page(' The API reference is at <a href="/docs">/docs</a>.');
/** On a project's share domain, which serves no API: nothing about one. */
const BARE_PAGE = page('');

/** The 404 page (a body left unread closes the connection); on a share domain without the API reference's address. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  closeIfBodyUnread(request, reply);
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .send(request.shareProject === null ? PAGE : BARE_PAGE);
}

/** Unknown URIs and known paths with the wrong method: HTTP 404 with an HTML page (docs/interface.md §2). */
export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler(sendNotFound);
}
