import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { publicFailure } from '../../http/errors.ts';
import { type CampaignRecords, behaviourRecord } from './records.ts';
import { campaignsRepository as repo } from './repository.ts';
import { suppressWithEvent } from './suppression.ts';
import type { CampaignTokens } from './tokens.ts';

/** Who is behind a tracked request (the routes read it). */
export interface TrackedRequest {
  userAgent: string | undefined;
  /** The whole client address (used to recognise mail proxies; never stored). */
  ip: string | undefined;
  /** The project whose share domain the request came to: another project's token is refused. */
  within?: string | null;
}

/**
 * Verifies the signed `rapport_click` parameter a tracked click appended to its target, for the
 * site-tracking service: the customer and campaign it names, or null (forged, another project's).
 */
export type MailClickResolver = (appId: string, token: string) => Promise<{ customerId: string; postId: string } | null>;

/** User-Agents of mail privacy proxies and scanners that fetch images without a person. */
const MAIL_PROXY_UA = /GoogleImageProxy|ggpht\.com|YahooMailProxy|Mimecast|Barracuda|Proofpoint|^Mozilla\/5\.0$/i;

/** Apple's 17.0.0.0/8 (Mail Privacy Protection fetches from Apple's own addresses). */
function isAppleAddress(ip: string | undefined): boolean {
  if (ip === undefined) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return /^17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * What a campaign's recipients do, as their mail clients and browsers report it (public, signed
 * tokens): opens, clicks, unsubscribes, and the `rapport_click` values the site snippet and the
 * share-link viewer bring back.
 */
export function createCampaignTracking(ctx: AppContext, deps: { tokens: CampaignTokens; records: CampaignRecords }) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, config } = ctx;
  const { tokens, records } = deps;

  return {
    /** An open: counted as a person's unless a mail proxy's or too soon after the send (then flagged as a machine's). */
    async open(token: string, req: TrackedRequest): Promise<void> {
      const { rec, campaign } = await tokens.recipientOf(token, req.within);
      const now = clock.now();
      const ua = req.userAgent ?? '';
      const machine =
        ctx.visitors.describe(ua, undefined).isBot ||
        MAIL_PROXY_UA.test(ua) ||
        isAppleAddress(req.ip) ||
        (rec.sent_at !== null && now - rec.sent_at < config.mailMachineOpenSeconds * 1000);
      if (machine) {
        await repo.count(db, rec.app_id, rec.id, 'machine_opens');
        return;
      }
      const n = (await repo.count(db, rec.app_id, rec.id, 'opens')) ?? 0;
      await records.addToPost(rec.app_id, campaign.id, { view_log_count: 1, view_log_user_count: n === 1 ? 1 : 0 });
      const content = { postId: campaign.id, title: campaign.title };
      await records.writeBehaviour(campaign, [behaviourRecord(`mail-open.${rec.id}.${n}`, rec.customer_id, 'mail_open', now, content)]);
    },

    /**
     * A click: the stored target of that position, with the signed `rapport_click` parameter
     * appended (the site snippet sends it back; a share link's viewer reads it). Counted unless a bot's.
     */
    async click(token: string, position: number, req: TrackedRequest): Promise<string> {
      const { rec, campaign } = await tokens.recipientOf(token, req.within);
      const target = await repo.link(db, rec.app_id, campaign.id, position);
      if (target === null) throw publicFailure('mail_token_invalid');
      if (!ctx.visitors.describe(req.userAgent, undefined).isBot) {
        const n = (await repo.count(db, rec.app_id, rec.id, 'clicks')) ?? 0;
        await records.addToPost(rec.app_id, campaign.id, { link_view_log_count: 1, link_view_log_user_count: n === 1 ? 1 : 0 });
        const content = { postId: campaign.id, url: target };
        await records.writeBehaviour(campaign, [
          behaviourRecord(`mail-click.${rec.id}.${n}`, rec.customer_id, 'mail_click', clock.now(), content),
        ]);
      }
      const url = new URL(target);
      url.searchParams.set('rapport_click', await tokens.clickToken(rec.app_id, rec.id));
      return url.href;
    },

    /** What the unsubscribe page shows: the address (partly hidden) and whether it is already unsubscribed. */
    async unsubscribeInfo(token: string, within?: string | null): Promise<{ address: string; unsubscribed: boolean }> {
      const { rec } = await tokens.recipientOf(token, within);
      const [local = '', domain = ''] = rec.email.split('@');
      const address = `${local.slice(0, 2)}${'*'.repeat(Math.max(1, local.length - 2))}@${domain}`;
      return { address, unsubscribed: (await repo.suppression(db, rec.app_id, rec.email_norm)) !== undefined };
    },

    /** Unsubscribes the recipient's address from the project's mail (RFC 8058 one-click, or the page's button). */
    async unsubscribe(token: string, within?: string | null): Promise<void> {
      const { rec } = await tokens.recipientOf(token, within);
      await suppressWithEvent(db, {
        appId: rec.app_id,
        emailNorm: rec.email_norm,
        reason: 'unsubscribe',
        detail: `post ${rec.campaign_id}`,
        customerId: rec.customer_id,
        postId: rec.campaign_id,
        now: clock.now(),
      });
    },

    /**
     * The site-tracking service's resolver: verifies a `rapport_click` token; `countReturn` counts the
     * return visit it brings (return visits, and returning visitors once each) on the campaign's Post,
     * called once the visit is recorded.
     */
    resolveClick: (async (appId: string, token: string) => {
      const rec = await tokens.clickRecipient(appId, token);
      if (rec === undefined) return null;
      return {
        customerId: rec.customer_id,
        postId: rec.campaign_id,
        countReturn: async () => {
          const n = (await repo.count(db, appId, rec.id, 'returns')) ?? 0;
          await records.addToPost(appId, rec.campaign_id, { return_log_count: 1, return_log_user_count: n === 1 ? 1 : 0 });
        },
      };
    }) satisfies MailClickResolver,

    /** The customer a `rapport_click` token names, counting nothing (a share link's viewer ties its visitor to it). */
    identifyClick: (async (appId: string, token: string) => {
      const rec = await tokens.clickRecipient(appId, token);
      return rec === undefined ? null : { customerId: rec.customer_id, postId: rec.campaign_id };
    }) satisfies MailClickResolver,
  };
}

export type CampaignTracking = ReturnType<typeof createCampaignTracking>;
