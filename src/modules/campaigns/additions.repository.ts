import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';

type Db = Kysely<Database>;

/** Rows per statement (well inside SQLite's and PostgreSQL's parameter limits). */
const CHUNK = 200;

/** The SQL of customers added to a campaign after it was made (additions.service.ts). */
export const campaignAdditionsRepository = {
  /** The addresses among `emails` (normalised) the campaign already mails. */
  async addressesIn(db: Db, appId: string, campaignId: string, emails: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < emails.length; i += CHUNK) {
      const rows = await db
        .selectFrom('campaign_recipients')
        .select('email_norm')
        .where('app_id', '=', appId)
        .where('campaign_id', '=', campaignId)
        .where('email_norm', 'in', emails.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.add(r.email_norm);
    }
    return out;
  },

  /** Queues the recipients and counts them in the campaign's `recipient_count`. */
  async addRecipients(db: Db, appId: string, campaignId: string, rows: Insertable<Database['campaign_recipients']>[], now: number) {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await db
        .insertInto('campaign_recipients')
        .values(rows.slice(i, i + CHUNK))
        .execute();
    }
    await db
      .updateTable('campaigns')
      .set((eb) => ({ recipient_count: eb('recipient_count', '+', rows.length), updated_at: now }))
      .where('app_id', '=', appId)
      .where('id', '=', campaignId)
      .execute();
  },
};
