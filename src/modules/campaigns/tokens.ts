import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { publicFailure } from '../../http/errors.ts';
import { randomToken } from '../../lib/secrets.ts';
import { type SigningKey, deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import type { CampaignRow, RecipientRow } from './mapper.ts';
import { campaignsRepository as repo } from './repository.ts';

/**
 * The signed values a campaign's mail carries: the recipient's tracking token (open pixel, tracked
 * links, unsubscribe link) and the `rapport_click` parameter a tracked click appends to its target.
 * The keys derive from a secret the server makes once and keeps in the database (as the share links'
 * view tokens do), so every process signs and checks alike.
 */
export function createCampaignTokens(ctx: AppContext) {
  const db: Kysely<Database> = ctx.database.db;
  let keys: Promise<{ mail: SigningKey; click: SigningKey }> | null = null;
  function signingKeys() {
    keys ??= repo
      .serverSecret(db, 'campaigns', randomToken(32), ctx.clock.now())
      .then((secret) => {
        const raw = Buffer.from(secret, 'base64url');
        return { mail: deriveKey(raw, 'mail tracking'), click: deriveKey(raw, 'mail click') };
      })
      .catch((err: unknown) => {
        keys = null;
        throw err;
      });
    return keys;
  }

  return {
    /** The tracking token of one recipient. */
    recipientToken: async (appId: string, recipientId: string) => signValue((await signingKeys()).mail, { a: appId, r: recipientId }),

    /** The `rapport_click` value of one recipient. */
    clickToken: async (appId: string, recipientId: string) => signValue((await signingKeys()).click, { a: appId, r: recipientId }),

    /**
     * The recipient a tracking token names, with its campaign; `mail_token_invalid` otherwise, and
     * for a token of another project than `within` (the project whose share domain was asked).
     */
    async recipientOf(token: string, within?: string | null): Promise<{ rec: RecipientRow; campaign: CampaignRow }> {
      const value = verifyValue((await signingKeys()).mail, token) as { a?: unknown; r?: unknown } | null;
      if (value === null || typeof value.a !== 'string' || typeof value.r !== 'string') throw publicFailure('mail_token_invalid');
      if (within != null && value.a !== within) throw publicFailure('mail_token_invalid');
      const rec = await repo.recipient(db, value.a, value.r);
      const campaign = rec === undefined ? undefined : await repo.campaign(db, rec.app_id, rec.campaign_id);
      if (rec === undefined || campaign === undefined) throw publicFailure('mail_token_invalid');
      return { rec, campaign };
    },

    /** The recipient a `rapport_click` token of the project names, if the token is good. */
    async clickRecipient(appId: string, token: string): Promise<RecipientRow | undefined> {
      const value = verifyValue((await signingKeys()).click, token) as { a?: unknown; r?: unknown } | null;
      if (value === null || value.a !== appId || typeof value.r !== 'string') return undefined;
      return repo.recipient(db, appId, value.r);
    },

    /** The addresses a recipient's mail links to, from `base`: where the campaign's project's public addresses start. */
    urls: (base: string, token: string) => ({
      click: (n: number) => `${base}/m/c/${token}/${n}`,
      pixel: `${base}/m/o/${token}`,
      unsubscribe: `${base}/m/u/${token}`,
    }),
  };
}

export type CampaignTokens = ReturnType<typeof createCampaignTokens>;
