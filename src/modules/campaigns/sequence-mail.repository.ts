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
   * The recipient is inserted first and the campaign's row updated last (the row every step's mail
   * shares is held only until the caller commits). The sender's `finishIfDrained` locks that row in a
   * statement of its own before it looks for queued recipients: if it came first, it may finish the
   * campaign, and the update here (which waits for it) makes it active again; if this came first, its
   * look, a statement begun after this commit, sees the recipient. A cancelled campaign's recipient is
   * cancelled. Answers the campaign's status.
   */
  async addRecipient(db: Db, row: Insertable<Database['campaign_recipients']>, now: number): Promise<string> {
    await db.insertInto('campaign_recipients').values(row).execute();
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
    if (c.status === 'cancelled') {
      await db
        .updateTable('campaign_recipients')
        .set({ state: 'cancelled' })
        .where('app_id', '=', row.app_id)
        .where('id', '=', row.id)
        .execute();
    }
    return c.status;
  },
};
