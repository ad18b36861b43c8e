import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { AppError } from '../../http/errors.ts';
import { publicPage } from '../../http/public-pages.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { invalidLinkPage, unsubscribeConfirmPage, unsubscribedPage } from './pages.ts';
import { AppPostParams, Campaign, CampaignBody, CampaignPreview, CampaignTest, DraftBody, PreviewBody } from './schemas.ts';
import type { CampaignComposer, CampaignTracking, TrackedRequest } from './service.ts';

const tags = ['E-mail campaigns'];

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export interface CampaignsRoutesOptions {
  campaigns: CampaignComposer;
  tracking: CampaignTracking;
}

/** A member's drafts: create a campaign, preview it, mail a test. */
function composeRoutes(fastify: FastifyInstance, campaigns: CampaignComposer): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1.7/app/:appId/posts',
    {
      bodyLimit: BODY_LIMITS.campaign,
      schema: {
        tags,
        summary: 'Create an e-mail campaign (any member; Sales mail only their own customers) and queue it for sending',
        description:
          'Recipients: `customer_ids` (comma-separated) or `group_id`; customers without a valid e-mail address, and addresses ' +
          'unsubscribed or bounced, are left out; one mail per address. The campaign appears in `GET /api/v1.7/posts` at once ' +
          '(its Post record: senderCount, successLogCount, opens, clicks, return visits). Failures: title_required, title_invalid, ' +
          'html_required, html_invalid (an unknown merge field), customer_ids_required, customer_ids_invalid, send_at_invalid, ' +
          'customer_not_found (unknown, or not yours), group_id_invalid, no_recipients, mail_not_configured.',
        params: AppIdParams,
        body: CampaignBody,
        response: businessResponses(Campaign),
      },
    },
    async (request) => ok(await campaigns.create(request.params.appId, request.user.id, request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId/post-previews',
    {
      bodyLimit: BODY_LIMITS.campaign,
      schema: {
        tags,
        summary:
          'A campaign draft rendered as its mail would be, for one customer or sample values (any member; Sales: their own customers)',
        description:
          'The subject, the HTML part (merge values HTML-escaped, links to their own targets, no open pixel, an inert unsubscribe ' +
          'link) and the plain-text part, with the rules of a campaign; with `customer_ids` or `group_id`, how many recipients ' +
          'a campaign to them would have now. Nothing is stored; no SMTP needed. Failures: title_required, title_invalid, ' +
          'html_required, html_invalid, customer_not_found (unknown, or not yours), customer_ids_invalid, group_not_found.',
        params: AppIdParams,
        body: PreviewBody,
        response: businessResponses(CampaignPreview),
      },
    },
    async (request) => ok(await campaigns.preview(request.params.appId, request.user.id, request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId/post-tests',
    {
      bodyLimit: BODY_LIMITS.campaign,
      schema: {
        tags,
        summary: "Mail a campaign draft to the caller's own account address, the subject marked [Test] (any member)",
        description:
          'Rendered as the preview renders it. Not a campaign: no Post record, nothing counted. Limited per user ' +
          '(`RATE_LIMIT_TEST_MAIL` a minute, then 429 rate_limited). Failures: those of the preview, mail_not_configured, ' +
          'account_email_missing (the caller has no e-mail address), mail_send_failed (the SMTP server refused it).',
        params: AppIdParams,
        body: DraftBody,
        response: businessResponses(CampaignTest),
      },
    },
    async (request, reply) => {
      await fastify.limits.count(request, reply, { testMail: request.user.id });
      return ok(await campaigns.sendTest(request.params.appId, request.user.id, request.body));
    },
  );
}

/** A campaign's progress, and pausing, resuming or cancelling it. */
function progressRoutes(fastify: FastifyInstance, campaigns: CampaignComposer): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/app/:appId/post/:postId',
    {
      schema: {
        tags,
        summary: "A campaign's progress: its status and its recipients per state (Master/Admin: any; Sales: their own)",
        description: 'A campaign the caller may not see is post_not_found, as an unknown one is.',
        params: AppPostParams,
        response: businessResponses(Campaign),
      },
    },
    async (request) => ok(await campaigns.get(request.params.appId, request.user.id, request.params.postId)),
  );

  for (const [action, summary] of [
    ['pause', 'Pause a sending campaign: mails already handed to SMTP finish, queued recipients wait (post_state_invalid otherwise)'],
    ['resume', 'Resume a paused campaign (post_state_invalid otherwise)'],
    ['cancel', 'Cancel a sending or paused campaign: its queued recipients are never mailed (post_state_invalid otherwise)'],
  ] as const) {
    app.post(
      `/api/v1.7/app/:appId/post/:postId/${action}`,
      { bodyLimit: BODY_LIMITS.small, schema: { tags, summary, params: AppPostParams, response: businessResponses(Campaign) } },
      async (request) => ok(await campaigns[action](request.params.appId, request.user.id, request.params.postId)),
    );
  }
}

const tracked = (request: FastifyRequest): TrackedRequest => ({
  userAgent: request.headers['user-agent'],
  ip: request.ip,
  within: request.shareProject,
});

/** The open pixel and tracked links, reached from the mail: no token. */
function trackingRoutes(fastify: FastifyInstance, tracking: CampaignTracking): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const crossOrigin = (reply: FastifyReply) =>
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin').header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex');

  app.get(
    '/m/o/:token',
    {
      config: { shareHost: 'serve', errorStyle: 'public' },
      schema: {
        ...publicPage(
          'The open pixel',
          "A campaign mail's tracking image: a 1×1 GIF; the open is counted for its recipient (machine opens aside).",
        ),
        params: Type.Object({ token: Type.String({ maxLength: 2048 }) }),
      },
    },
    async (request, reply) => {
      crossOrigin(reply);
      await tracking.open(request.params.token, tracked(request));
      return reply.type('image/gif').send(PIXEL);
    },
  );

  app.get(
    '/m/c/:token/:n',
    {
      config: { shareHost: 'serve', errorStyle: 'public' },
      schema: {
        ...publicPage(
          'A tracked link in a mail',
          "Link `n` of a campaign mail: the click is counted for its recipient and answered 302 to the link's address.",
        ),
        params: Type.Object({ token: Type.String({ maxLength: 2048 }), n: Type.String({ pattern: '^[0-9]{1,4}$' }) }),
      },
    },
    async (request, reply) => {
      crossOrigin(reply).header('Referrer-Policy', 'no-referrer');
      const to = await tracking.click(request.params.token, Number(request.params.n), tracked(request));
      return reply.redirect(to, 302);
    },
  );
}

/** The unsubscribe page and the one-click unsubscribe, reached from the mail: no token. */
function unsubscribeRoutes(fastify: FastifyInstance, tracking: CampaignTracking): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const html = (reply: FastifyReply) =>
    reply
      .header('Cache-Control', 'no-store')
      .header('X-Robots-Tag', 'noindex')
      .header('Referrer-Policy', 'no-referrer')
      .type('text/html; charset=utf-8');
  const unsubParams = Type.Object({ token: Type.String({ maxLength: 2048 }) });

  /** A token that does not verify answers the page's own 400, not JSON. */
  async function orInvalid(reply: FastifyReply, run: () => Promise<string>) {
    try {
      return html(reply).send(await run());
    } catch (err) {
      if (err instanceof AppError && err.code === 'mail_token_invalid') return html(reply).code(400).send(invalidLinkPage());
      throw err;
    }
  }

  app.get(
    '/m/u/:token',
    {
      config: { shareHost: 'serve' },
      schema: {
        ...publicPage(
          'The unsubscribe page',
          "The page a mail's unsubscribe link opens: HTML asking to confirm (or saying the address is already unsubscribed); 400 page for a token that does not verify.",
        ),
        params: unsubParams,
      },
    },
    async (request, reply) =>
      orInvalid(reply, async () => {
        const info = await tracking.unsubscribeInfo(request.params.token, request.shareProject);
        return unsubscribeConfirmPage(info.address, info.unsubscribed);
      }),
  );

  // RFC 8058: the mail client's one-click POST (body `List-Unsubscribe=One-Click`), or the page's button.
  app.post(
    '/m/u/:token',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { shareHost: 'serve' },
      schema: {
        ...publicPage(
          'Unsubscribe',
          "RFC 8058 one-click (`List-Unsubscribe=One-Click`) or the page's button: the address is suppressed for the project; answers an HTML page.",
        ),
        params: unsubParams,
        body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
    },
    async (request, reply) =>
      orInvalid(reply, async () => {
        await tracking.unsubscribe(request.params.token, request.shareProject);
        return unsubscribedPage();
      }),
  );
}

export async function campaignsRoutes(fastify: FastifyInstance, opts: CampaignsRoutesOptions): Promise<void> {
  composeRoutes(fastify, opts.campaigns);
  progressRoutes(fastify, opts.campaigns);
  // Public: the open pixel, tracked links and unsubscribe, under the public pages' tag in the OpenAPI document.
  trackingRoutes(fastify, opts.tracking);
  unsubscribeRoutes(fastify, opts.tracking);
}
