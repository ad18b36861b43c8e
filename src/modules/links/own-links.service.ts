import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { randomToken } from '../../lib/secrets.ts';
import { linksRepository as repo } from './repository.ts';

const linkUrl = (base: string, shareToken: string) => `${base}/l/${encodeURIComponent(shareToken)}`;

/** A customer's own link: its id and viewer address (on the project's share domain when it has one). */
export interface OwnLink {
  id: string;
  url: string;
}

/**
 * Customers' own links (docs/sequences.md "Running"): a share link of a deck made for one customer,
 * directed at them, so every view of it is theirs (docs/links.md). Made by another module in its
 * transaction (the sequences runner, for a sequence's deck): a copy of the deck's link (its file or
 * address, title, gates, form, UTM fields) with a new share token, created by the sending member.
 */
export function createOwnLinks(ctx: AppContext, publicBase: (appId: string) => Promise<string>) {
  return {
    /**
     * A directed copy of the project's link `linkId` for the customer, or null when that link is gone
     * or disabled. Creates one each call: the caller keeps it (the enrolment's `own_link_id`).
     */
    async directedCopy(
      trx: Kysely<Database>,
      input: { appId: string; linkId: string; customerId: string; creatorId: number; creatorName: string | null; now: number },
    ): Promise<OwnLink | null> {
      const deck = await repo.find(trx, input.appId, input.linkId);
      if (deck === undefined || deck.status !== 1) return null;
      const id = timeOrderedUuid(input.now);
      // 128 random bits: a clash with another token fails the caller's transaction, which is tried again.
      const shareToken = randomToken(16);
      await repo.insert(trx, {
        ...deck,
        id,
        share_token: shareToken,
        creator_id: input.creatorId,
        creator_name: input.creatorName,
        customer_id: input.customerId,
        is_directional: 1,
        read_seq: 0,
        created_at: input.now,
        updated_at: input.now,
        disabled_at: null,
      });
      return { id, url: linkUrl(await publicBase(input.appId), shareToken) };
    },

    /** The viewer address of a project's link, or null when it is gone. */
    async url(db: Kysely<Database>, appId: string, linkId: string): Promise<string | null> {
      const link = await repo.find(db, appId, linkId);
      return link === undefined ? null : linkUrl(await publicBase(appId), link.share_token);
    },
  };
}

export type OwnLinks = ReturnType<typeof createOwnLinks>;
