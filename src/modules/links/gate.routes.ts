import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { publicPage } from '../../http/public-pages.ts';
import type { GatePost } from './gate.service.ts';
import type { LinkViewer } from './service.ts';
import type { VisitorRequest } from './viewer-model.ts';
import { type ViewerHttp, unavailable } from './viewer.http.ts';

const shareParams = Type.Object({ token: Type.String() });
const formBody = Type.Record(Type.String(), Type.Unknown());

/** A gate's form post: counted against its address's form budget first, then answered by the gate. */
function gatePost(http: ViewerHttp, post: (token: string, body: Record<string, unknown>, visitor: VisitorRequest) => Promise<GatePost>) {
  return async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    await http.countForm(request, reply);
    const token = request.params.token;
    const visitor = await http.visitorOf(request, reply);
    const result = await post(token, request.body as Record<string, unknown>, visitor);
    if (result === undefined) return unavailable(reply, 'missing');
    return http.gatePosted(reply, token, result);
  };
}

/**
 * The gates a reader passes before the document (docs/links.md): the passcode, the e-mail gate (its
 * address, then with `email_verify` its code) and the agreement. Form posts, each answered with the
 * unlock cookie and 303 back to the viewer, or the gate's page again saying what was wrong; all held
 * to the address's RATE_LIMIT_FORM.
 */
export function gateRoutes(fastify: FastifyInstance, viewer: LinkViewer, http: ViewerHttp): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const route = (summary: string, description: string) => ({
    bodyLimit: BODY_LIMITS.small,
    config: { shareHost: 'serve' as const, limitBy: 'caller' as const },
    schema: { ...publicPage(summary, description), params: shareParams, body: formBody },
  });

  app.post(
    '/l/:token/unlock',
    route(
      'Unlock a passcode link',
      'Form post `passcode`: right answers 303 back to the viewer with an unlock cookie; wrong answers the passcode page again (403). After too many wrong ones for the link from any address (LINK_PASSCODE_FAILURES), its passcode is refused, the right one too, with the passcode page saying so (429, Retry-After) until the lockout ends or the owner sets a new passcode.',
    ),
    async (request, reply) => {
      await http.countForm(request, reply);
      const token = request.params.token;
      const result = await viewer.unlock(
        token,
        http.unlockOf(request),
        (request.body as Record<string, unknown>).passcode,
        request.shareProject,
      );
      if (result === undefined) return unavailable(reply, 'missing');
      if (result === null) return http.render(reply, { kind: 'passcode', shareToken: token, title: '', wrong: true }, {});
      if ('lockedFor' in result)
        return http.render(reply, { kind: 'passcode', shareToken: token, title: '', wrong: false, lockedFor: result.lockedFor }, {});
      return http.unlocked(reply, token, result.cookie);
    },
  );

  app.post(
    '/l/:token/gate',
    route(
      'Pass the e-mail gate',
      "Form post `email` (and `name`), taken like the link's form. An address the link's allow and deny lists refuse answers the gate page saying so (403), and nothing is sent. Without `email_verify` a valid address answers 303 back to the viewer with an unlock cookie; with it, a six-digit code is mailed to the address and the answer is 303 back to the viewer, which asks for the code (a new code at most once a minute per address: 429 with Retry-After; an address locked by wrong codes: 429). An invalid address answers the gate page again (400). `change=1` forgets the address awaiting its code.",
    ),
    gatePost(http, viewer.passGate),
  );

  app.post(
    '/l/:token/verify',
    route(
      "Give the e-mail gate's code",
      'Form post `code`, the six digits mailed to the address the gate awaits (the unlock cookie names it): right answers 303 back to the viewer with the gate passed and the address verified; not six digits 400, wrong 403, expired or used 400, each the code page again. The fifth wrong code for the address on the link within 15 minutes locks it for 15 minutes (429, Retry-After), the right code refused too.',
    ),
    gatePost(http, viewer.verify),
  );

  app.post(
    '/l/:token/agree',
    route(
      "Accept the link's agreement",
      'Form post `agree=1` (the box ticked), `version` (the version shown) and an optional `name`: the acceptance is recorded and the answer is 303 back to the viewer with an unlock cookie naming the version. Unticked 400; a version other than the current one (the text changed) 409, with the current text to read.',
    ),
    gatePost(http, viewer.agree),
  );
}
