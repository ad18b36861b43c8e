import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { readCookie, setCookie } from '../../http/cookies.ts';
import { MEMBER_PASS_COOKIE } from '../../http/console-session.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { ViewerScript } from '../../lib/viewer-script.ts';
import type { AccountsService } from '../accounts/service.ts';
import { UNLOCK_TTL_S, type ViewerAnswer, type VisitorRequest } from './service.ts';
import { agreementPage, codePage } from './gate-html.ts';
import { emailGatePage, fileViewerPage, messagePage, passcodePage, webViewerPage } from './viewer-html.ts';
import { roomDocumentHeading, roomDocumentStyle, roomViewerPage } from './viewer-room-html.ts';

/*
 * The public viewer's HTTP plumbing, shared by its routes (viewer.routes.ts): who the visitor is, the
 * visitor and unlock cookies, every page's headers, the viewer's answer rendered as a page, its rate budgets.
 */

/** What the public viewer's routes need besides the links services. */
export interface ViewerRoutesOptions {
  accounts: AccountsService;
  script: ViewerScript | null;
  /** The server's public address is https: cookies are Secure. */
  secureCookies: boolean;
}

/** The first-party visitor cookie (docs/identity.md): 128 random bits, HttpOnly, for the viewer's paths. */
const VISITOR_COOKIE = 'rapport_visitor';
const VISITOR_RE = /^[A-Za-z0-9_-]{22}$/;
const VISITOR_TTL_S = 365 * 24 * 3600;
/** A link's unlock cookie (its passcode given, its e-mail gate passed), on the link's own path. */
const UNLOCK_COOKIE = 'rapport_unlock';

/** The messages of a link that does not open: unknown and forged tokens alike get the 404 one. */
const UNAVAILABLE = {
  missing: { status: 404, heading: 'Link not found', text: 'This link does not exist. Check the address you were given.' },
  disabled: { status: 410, heading: 'Link disabled', text: 'This link has been disabled by its owner and no longer opens.' },
  expired: { status: 410, heading: 'Link expired', text: 'This link has expired and no longer opens.' },
} as const;

/** The viewer's HTTP plumbing its routes share: the visitor, cookies, page headers, rate budgets, rendering. */
export type ViewerHttp = ReturnType<typeof viewerHttp>;

/** Headers of every viewer page: not indexed, no referrer, never stored, and the page's own CSP. */
export function pageHeaders(reply: FastifyReply, nonce: string, frameOrigin?: string): void {
  reply
    .header(
      'Content-Security-Policy',
      `default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; img-src 'self'; ` +
        `style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'${frameOrigin ? `; frame-src ${frameOrigin}` : ''}`,
    )
    .header('X-Robots-Tag', 'noindex, nofollow, noarchive')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8');
}

/** The page of a link that does not open. */
export function unavailable(reply: FastifyReply, why: keyof typeof UNAVAILABLE) {
  const nonce = randomToken(16);
  const m = UNAVAILABLE[why];
  pageHeaders(reply, nonce);
  return reply.code(m.status).send(messagePage(nonce, m.heading, m.text));
}

/** The page to start on (`?p=`), within the file's pages. */
const pageOf = (q: unknown, pages: number) => {
  const raw = (q as { p?: unknown }).p;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(1, n), pages);
};

export function viewerHttp(fastify: FastifyInstance, opts: ViewerRoutesOptions) {
  const { accounts, script, secureCookies } = opts;
  const scriptUrl = script ? `/assets/${script.name}` : null;

  /** The visitor cookie's id, the cookie set (with a new one) when the browser had none. */
  function visitorIdOf(request: FastifyRequest, reply: FastifyReply): string {
    const given = readCookie(request, VISITOR_COOKIE);
    if (given !== undefined && VISITOR_RE.test(given)) return given;
    const visitorId = randomToken(16);
    setCookie(reply, VISITOR_COOKIE, visitorId, { path: '/l', maxAgeSeconds: VISITOR_TTL_S, secure: secureCookies });
    return visitorId;
  }

  /**
   * A platform user signed in on this request: a bearer token in the Authorization header, or the
   * console's member pass cookie, so that members opening links from the console are not counted.
   */
  async function signedInUser(request: FastifyRequest): Promise<number | null> {
    if (request.headers.authorization === undefined) return accounts.userOfMemberPass(readCookie(request, MEMBER_PASS_COOKIE));
    const token = bearerToken(request);
    if (token === undefined || token === '') return null;
    try {
      return (await accounts.authenticate(token)).id;
    } catch {
      return null;
    }
  }

  /** The viewer's answer as a page (or a redirect). */
  function render(reply: FastifyReply, answer: ViewerAnswer, query: unknown) {
    const nonce = randomToken(16);
    switch (answer.kind) {
      case 'unavailable':
        return unavailable(reply, answer.why);
      case 'passcode':
        pageHeaders(reply, nonce);
        if (answer.lockedFor !== undefined) {
          return reply
            .code(429)
            .header('Retry-After', String(answer.lockedFor))
            .send(passcodePage(nonce, answer.shareToken, answer.title, { wrong: false, lockedFor: answer.lockedFor, brand: answer.brand }));
        }
        return reply
          .code(answer.wrong ? 403 : 200)
          .send(passcodePage(nonce, answer.shareToken, answer.title, { wrong: answer.wrong, brand: answer.brand }));
      case 'email': {
        pageHeaders(reply, nonce);
        const { kind: _kind, shareToken, title, ...gate } = answer;
        if (answer.busy !== undefined) reply.header('Retry-After', String(answer.busy));
        if (answer.unsent) reply.header('Retry-After', '30');
        const status = answer.refused ? 403 : answer.busy !== undefined ? 429 : answer.unsent ? 503 : answer.invalid ? 400 : 200;
        return reply.code(status).send(emailGatePage(nonce, shareToken, title, gate));
      }
      case 'code': {
        pageHeaders(reply, nonce);
        const wait = answer.lockedFor ?? answer.waitFor;
        if (wait !== undefined) reply.header('Retry-After', String(wait));
        const status = wait !== undefined ? 429 : answer.problem === 'wrong' ? 403 : answer.problem !== undefined ? 400 : 200;
        return reply.code(status).send(codePage(nonce, answer));
      }
      case 'agreement':
        pageHeaders(reply, nonce);
        return reply
          .code(answer.problem === 'changed' ? 409 : answer.problem === 'unticked' ? 400 : 200)
          .send(agreementPage(nonce, answer));
      case 'redirect':
        reply.header('Referrer-Policy', 'no-referrer').header('X-Robots-Tag', 'noindex, nofollow').header('Cache-Control', 'no-store');
        return reply.redirect(answer.url, 302);
      case 'document-missing':
        pageHeaders(reply, nonce);
        return reply
          .code(200)
          .send(
            messagePage(
              nonce,
              answer.title || 'Document',
              'This document is being prepared, or is not available. Try again in a moment.',
              '<meta http-equiv="refresh" content="10">\n',
            ),
          );
      case 'file': {
        pageHeaders(reply, nonce);
        const sent = (query as { sent?: unknown }).sent === '1';
        const startPage = pageOf(query, answer.file.pageCount);
        // A room's document: the way back to the room in its bar.
        const room = answer.room
          ? {
              heading: roomDocumentHeading(answer.shareToken, answer.title, answer.room.title, answer.brand),
              head: roomDocumentStyle(nonce),
            }
          : {};
        return reply.send(fileViewerPage(answer, { nonce, script: scriptUrl, sent, startPage, ...room }));
      }
      case 'room':
        pageHeaders(reply, nonce);
        return reply.send(roomViewerPage(answer, { nonce, script: scriptUrl }));
      case 'web': {
        const origin = answer.embed ? new URL(answer.website).origin : undefined;
        pageHeaders(reply, nonce, origin);
        const sent = (query as { sent?: unknown }).sent === '1';
        return reply.send(webViewerPage(answer, { nonce, script: scriptUrl, sent, startPage: 1 }));
      }
    }
  }

  return {
    render,

    /** Who is behind the request, and the visitor cookie set when the browser had none. */
    async visitorOf(request: FastifyRequest, reply: FastifyReply): Promise<VisitorRequest> {
      return {
        userAgent: request.headers['user-agent'],
        ip: request.ip,
        visitorId: visitorIdOf(request, reply),
        userId: await signedInUser(request),
        unlock: readCookie(request, UNLOCK_COOKIE),
        within: request.shareProject,
      };
    },

    /** Who asks for a page image or a download, as a watermark names them: the visitor cookie's id and the address. */
    readerOf: (request: FastifyRequest, reply: FastifyReply) => ({ visitorId: visitorIdOf(request, reply), ip: request.ip }),

    /** The link's unlock cookie as the browser sent it. */
    unlockOf: (request: FastifyRequest) => readCookie(request, UNLOCK_COOKIE),

    /** A download that waits for the file's pages to be rendered: 503, to try again shortly. */
    preparing(reply: FastifyReply) {
      const nonce = randomToken(16);
      pageHeaders(reply, nonce);
      const text = 'This document is still being prepared. Try again in a moment.';
      return reply
        .code(503)
        .header('Retry-After', '10')
        .send(messagePage(nonce, 'Not ready yet', text));
    },

    /** Sets the link's unlock cookie and sends the browser back to the viewer. */
    unlocked(reply: FastifyReply, token: string, cookie: string) {
      setCookie(reply, UNLOCK_COOKIE, cookie, { path: `/l/${token}`, maxAgeSeconds: UNLOCK_TTL_S, secure: secureCookies });
      return reply.redirect(`/l/${encodeURIComponent(token)}`, 303);
    },

    /** A gate's form post answered: its unlock cookie (when it changed), then its page, or back to the viewer. */
    gatePosted(reply: FastifyReply, token: string, post: { cookie?: string; answer?: ViewerAnswer }) {
      if (post.cookie !== undefined) {
        setCookie(reply, UNLOCK_COOKIE, post.cookie, { path: `/l/${token}`, maxAgeSeconds: UNLOCK_TTL_S, secure: secureCookies });
      }
      if (post.answer !== undefined) return render(reply, post.answer, {});
      return reply.redirect(`/l/${encodeURIComponent(token)}`, 303);
    },

    countViewer: (request: FastifyRequest, reply: FastifyReply) => fastify.limits.count(request, reply, { viewer: request.ip }),
    countForm: (request: FastifyRequest, reply: FastifyReply) => fastify.limits.count(request, reply, { form: request.ip }),
  };
}
