import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/errors.ts';
import { publicPage } from '../../http/public-pages.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { ViewerScript } from '../../lib/viewer-script.ts';
import { BEACON_MAX_BYTES } from './beacons.ts';
import { gateRoutes } from './gate.routes.ts';
import type { LinkViewer, LinkViews, LinksService } from './service.ts';
import { type ViewerHttp, type ViewerRoutesOptions, pageHeaders, unavailable, viewerHttp } from './viewer.http.ts';
import { messagePage } from './viewer-html.ts';

export type { ViewerRoutesOptions } from './viewer.http.ts';

/**
 * The public viewer (docs/links.md): browser pages and the beacon protocol, no token, their own rate
 * budgets, listed in the OpenAPI document under the public pages' tag.
 */
export function viewerRoutes(fastify: FastifyInstance, links: Pick<LinksService, 'viewer' | 'views'>, opts: ViewerRoutesOptions): void {
  const http = viewerHttp(fastify, opts);
  viewerPageRoutes(fastify, links.viewer, http);
  gateRoutes(fastify, links.viewer, http);
  formRoute(fastify, links.viewer, http);
  beaconRoute(fastify, links.views, http);
  addressRoutes(fastify, links.viewer, http, opts.script);
}

const shareParams = Type.Object({ token: Type.String() });
const formBody = Type.Record(Type.String(), Type.Unknown());

/** The viewer's page, its page images and the original file's download. */
function viewerPageRoutes(fastify: FastifyInstance, viewer: LinkViewer, http: ViewerHttp): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/l/:token',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          'The share-link viewer',
          "The page a link's recipient opens (`url` of a Link): HTML. A file link shows its rendered pages, a web page link its page in a frame, a redirect link answers 302 to its `website`. Unknown tokens 404, disabled or expired links 410, each an HTML page; a passcode or e-mail gate comes first when the link has one. Sets the visitor cookie.",
        ),
        params: shareParams,
      },
    },
    async (request, reply) => {
      await http.countViewer(request, reply);
      const visitor = await http.visitorOf(request, reply);
      const click = (request.query as { rapport_click?: unknown }).rapport_click;
      if (typeof click === 'string' && click.length <= 2048) visitor.mailClick = click;
      return http.render(reply, await viewer.viewer(request.params.token, visitor, request.method === 'HEAD'), request.query);
    },
  );

  app.get(
    '/l/:token/page/:n',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          'A rendered page image',
          "Page `n` (from 1) of the link's file, as rendered: WebP, `width=phone` (default) or `desktop`; ETag and `If-None-Match`. A link with `watermark`: the image with the reader's watermark drawn in, never cached (`no-store`, no ETag), 503 with Retry-After when too many are being drawn. 404 page when the link or page is unknown or still locked.",
        ),
        params: Type.Object({ token: Type.String(), n: Type.String() }),
      },
    },
    pageImageHandler(viewer, http),
  );

  app.get(
    '/l/:token/download',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          'Download the original file',
          "The original upload, as an attachment, when the link has `allow_download`; otherwise the 404 page. A link with `watermark` as well: a PDF of its page images, each with the reader's watermark drawn in, written as it is sent (503 with Retry-After while the file is still being rendered, or too many are being written).",
        ),
        params: shareParams,
      },
    },
    downloadHandler(viewer, http),
  );
}

type DocumentRequest = FastifyRequest<{ Params: { token: string; fileId?: string } }>;
type PageRequest = FastifyRequest<{ Params: { token: string; fileId?: string; n: string } }>;

/**
 * A page image's answer: a file link's (`/l/{token}/page/{n}`) or a room document's
 * (`/l/{token}/doc/{file-id}/page/{n}`), watermarked for its reader when the link has one.
 */
export function pageImageHandler(viewer: LinkViewer, http: ViewerHttp) {
  return async (request: PageRequest, reply: FastifyReply) => {
    await http.countViewer(request, reply);
    const n = /^\d{1,6}$/.test(request.params.n) ? Number(request.params.n) : 0;
    const width = (request.query as { width?: unknown }).width === 'desktop' ? 'desktop' : 'phone';
    const image =
      n < 1
        ? null
        : await viewer.pageImage({
            shareToken: request.params.token,
            unlock: http.unlockOf(request),
            n,
            width,
            ifNoneMatch: request.headers['if-none-match'],
            reader: http.readerOf(request, reply),
            within: request.shareProject,
            fileId: request.params.fileId,
          });
    if (image === null) return unavailable(reply, 'missing');
    reply.header('X-Robots-Tag', 'noindex').header('Cross-Origin-Resource-Policy', 'same-origin');
    // Drawn for this reader at this minute: never stored, never answered from another's copy.
    if ('stamped' in image)
      return reply.type(image.contentType).header('Cache-Control', 'no-store, private').send(Buffer.from(image.bytes));
    reply.header('ETag', image.etag).header('Cache-Control', 'private, max-age=3600');
    if (image.notModified) return reply.code(304).send();
    return reply.type(image.contentType).header('Content-Length', String(image.size)).send(image.body);
  };
}

/** A download's answer: a file link's file or a room's document, the original or a watermarked PDF. */
export function downloadHandler(viewer: LinkViewer, http: ViewerHttp) {
  return async (request: DocumentRequest, reply: FastifyReply) => {
    await http.countViewer(request, reply);
    const download = await viewer.download(request.params.token, {
      unlock: http.unlockOf(request),
      reader: http.readerOf(request, reply),
      within: request.shareProject,
      fileId: request.params.fileId,
    });
    if (download === null) return unavailable(reply, 'missing');
    if (download.kind === 'preparing') return http.preparing(reply);
    const ascii = download.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    reply
      .header('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(download.name)}`)
      .header('Cache-Control', download.kind === 'watermarked' ? 'no-store, private' : 'no-store')
      .header('X-Robots-Tag', 'noindex');
    // A watermarked PDF is written as its pages are drawn: its length is not known before.
    if (download.kind === 'watermarked') return reply.type('application/pdf').send(download.body);
    return reply.type(download.contentType).header('Content-Length', String(download.size)).send(download.body);
  };
}

/** The link's form: JSON from the viewer's script, or the browser's own form post without script. */
function formRoute(fastify: FastifyInstance, viewer: LinkViewer, http: ViewerHttp): void {
  const isPlainFormPost = (request: FastifyRequest) =>
    (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') &&
    (request.headers.accept ?? '').includes('text/html');

  fastify.withTypeProvider<TypeBoxTypeProvider>().post(
    '/l/:token/form',
    {
      bodyLimit: BODY_LIMITS.default,
      config: { shareHost: 'serve', limitBy: 'caller', errorStyle: 'public' },
      schema: {
        ...publicPage(
          "Send the link's form",
          "The link's lead form (its configured fields). JSON or a script-less form post: the first answers `{status:1,data:{}}` whoever it names (malformed fields: HTTP 400 `form_invalid`), the second 303 back to the viewer (or an HTML page saying why not).",
        ),
        params: shareParams,
        body: formBody,
      },
    },
    async (request, reply) => {
      await http.countForm(request, reply);
      const token = request.params.token;
      const visitor = await http.visitorOf(request, reply);
      const plain = isPlainFormPost(request);
      try {
        await viewer.form(token, request.body as Record<string, unknown>, visitor);
      } catch (err) {
        if (!plain || !(err instanceof AppError) || err.kind !== 'public') throw err;
        const nonce = randomToken(16);
        pageHeaders(reply, nonce);
        return reply.code(400).send(messagePage(nonce, 'The form was not sent', err.message));
      }
      // Without script the browser posted the form itself: back to the page, which says it was sent.
      if (plain) return reply.redirect(`/l/${encodeURIComponent(token)}?sent=1#form`, 303);
      return ok({});
    },
  );
}

/** The viewer's beacons (view recording). */
function beaconRoute(fastify: FastifyInstance, views: LinkViews, http: ViewerHttp): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().post(
    '/l/:token/events',
    {
      bodyLimit: BEACON_MAX_BYTES,
      config: { shareHost: 'serve', limitBy: 'caller', errorStyle: 'public', parameters: 'raw' },
      schema: {
        ...publicPage(
          'Page-dwell beacons',
          "The viewer's beacon protocol (JSON or `text/plain` for `sendBeacon`, at most 8 KiB): opens a view, reports the pages read with their visible time, and closes it. Answers the envelope; docs/links.md lists the fields.",
        ),
        params: shareParams,
      },
    },
    async (request, reply) => {
      // Every beacon spends its address's budget too: made-up view ids buy no fresh one.
      await fastify.limits.count(request, reply, { beaconAddress: request.ip });
      const visitor = await http.visitorOf(request, reply);
      let counted = false;
      try {
        const result = await views.beacon(request.params.token, request.body, visitor, async (viewId) => {
          counted = true;
          await fastify.limits.count(request, reply, { view: viewId });
        });
        return ok(result);
      } catch (err) {
        // A refused beacon spends its address's budget: made-up views buy no fresh one.
        if (!counted && err instanceof AppError) await fastify.limits.count(request, reply, 'ip');
        throw err;
      }
    },
  );
}

/** The original platform's link address, and the viewer's script. */
function addressRoutes(fastify: FastifyInstance, viewer: LinkViewer, http: ViewerHttp, script: ViewerScript | null): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // `/link/{link-id}?share_token=…`, the original platform's address of a link: the viewer's.
  app.get(
    '/link/:linkId',
    {
      config: { shareHost: 'serve', limitBy: 'caller' },
      schema: {
        ...publicPage(
          "The original platform's link address",
          "`/link/{link-id}?share_token=…`: 302 to the link's viewer address, or the 404 page.",
        ),
        params: Type.Object({ linkId: Type.String({ maxLength: 200 }) }),
      },
    },
    async (request, reply) => {
      await http.countViewer(request, reply);
      const q = (request.query as { share_token?: unknown }).share_token;
      const to = await viewer.legacyAddress(request.params.linkId, typeof q === 'string' ? q : undefined, request.shareProject);
      if (to === null) return unavailable(reply, 'missing');
      return reply.header('Referrer-Policy', 'no-referrer').redirect(to, 302);
    },
  );

  // The viewer's script: its name has its content's hash, so it is cached for good.
  app.get(
    '/assets/:name',
    {
      config: { shareHost: 'serve', limitBy: 'none' },
      schema: {
        ...publicPage("The viewer's script", "The viewer page's script, named by its content's hash: cached for good."),
        params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
      },
    },
    async (request, reply) => {
      if (script === null || request.params.name !== script.name) return unavailable(reply, 'missing');
      reply
        .type('text/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('Vary', 'Accept-Encoding');
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')))
        return reply.header('Content-Encoding', 'gzip').send(script.gzipped);
      return reply.send(script.body);
    },
  );
}
