import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database } from '../../db/index.ts';

type Db = Kysely<Database>;

/** The SQL of sequence steps' mail (sequence-mail.service.ts). */
export const sequenceMailRepository = {
  async exists(db: Db, appId: string, campaignId: string): Promise<boolean> {
    const row = await db.selectFrom('campaigns').select('id').where('app_id', '=', appId).where('id', '=', campaignId).executeTakeFirst();
    return row !== undefined;
  },

  /** The step's campaign and its link targets; another transaction making it first wins (its row is the same). */
  async insertCampaign(
    db: Db,
    campaign: Insertable<Database['campaigns']>,
    links: Insertable<Database['campaign_links']>[],
  ): Promise<void> {
    const made = await db
      .insertInto('campaigns')
      .values(campaign)
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (made === undefined || links.length === 0) return;
    await db.insertInto('campaign_links').values(links).execute();
  },

  /**
   * Queues one recipient and counts it; a campaign that had sent everything (`done`) is active again.
   * The campaign row is updated before the recipient is inserted: the sender's `finishIfDrained`
   * locks the row first too, so it either finishes before this (and the row is made active here) or
   * sees the new recipient after this commits. A cancelled campaign's recipient is queued cancelled.
   * Answers the campaign's status.
   */
  async addRecipient(db: Db, row: Insertable<Database['campaign_recipients']>, now: number): Promise<string> {
    const c = await db
      .updateTable('campaigns')
      .set({
        status: sql<string>`case when status = 'done' then 'active' else status end`,
        finished_at: sql<number | null>`case when status = 'done' then null else finished_at end`,
        recipient_count: sql<number>`recipient_count + 1`,
        updated_at: now,
      })
      .where('app_id', '=', row.app_id)
      .where('id', '=', row.campaign_id)
      .returning('status')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('campaign_recipients')
      .values({ ...row, state: c.status === 'cancelled' ? 'cancelled' : row.state })
      .execute();
    return c.status;
  },
};
