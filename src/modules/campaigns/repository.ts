import { type Database, crossProject } from '../../db/index.ts';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { CampaignRow, RecipientRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Rows per multi-row insert (well inside SQLite's and PostgreSQL's parameter limits). */
const INSERT_CHUNK = 200;

/** The recipient counters a tracked request moves. */
export type RecipientCounter = 'opens' | 'machine_opens' | 'clicks' | 'returns';

export const campaignsRepository = {
  /** The server's secret of this name: made from `candidate` the first time any process asks, then always the same. */
  async serverSecret(db: Db, name: string, candidate: string, now: number): Promise<string> {
    await db
      .insertInto('server_secrets')
      .values({ name, value: candidate, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  },

  /** The addresses among `emails` (normalised) the project may no longer mail. */
  async suppressed(db: Db, appId: string, emails: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < emails.length; i += INSERT_CHUNK) {
      const rows = await db
        .selectFrom('mail_suppressions')
        .select('email_norm')
        .where('app_id', '=', appId)
        .where('email_norm', 'in', emails.slice(i, i + INSERT_CHUNK))
        .execute();
      for (const r of rows) out.add(r.email_norm);
    }
    return out;
  },

  async suppress(db: Db, appId: string, emailNorm: string, reason: string, detail: string | null, now: number): Promise<void> {
    await db
      .insertInto('mail_suppressions')
      .values({ app_id: appId, email_norm: emailNorm, reason, detail, created_at: now })
      .onConflict((oc) => oc.columns(['app_id', 'email_norm']).doNothing())
      .execute();
  },

  async suppression(db: Db, appId: string, emailNorm: string) {
    return db
      .selectFrom('mail_suppressions')
      .selectAll()
      .where('app_id', '=', appId)
      .where('email_norm', '=', emailNorm)
      .executeTakeFirst();
  },

  async insertCampaign(
    db: Db,
    campaign: Insertable<Database['campaigns']>,
    links: Insertable<Database['campaign_links']>[],
    recipients: Insertable<Database['campaign_recipients']>[],
  ): Promise<void> {
    await db.insertInto('campaigns').values(campaign).execute();
    if (links.length > 0) await db.insertInto('campaign_links').values(links).execute();
    for (let i = 0; i < recipients.length; i += INSERT_CHUNK) {
      await db
        .insertInto('campaign_recipients')
        .values(recipients.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  },

  async campaign(db: Db, appId: string, id: string): Promise<CampaignRow | undefined> {
    return db.selectFrom('campaigns').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** How many recipients of the campaign are in each state. */
  async stateCounts(db: Db, appId: string, campaignId: string): Promise<Map<string, number>> {
    const rows = await db
      .selectFrom('campaign_recipients')
      .select(['state', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('app_id', '=', appId)
      .where('campaign_id', '=', campaignId)
      .groupBy('state')
      .execute();
    return new Map(rows.map((r) => [r.state, Number(r.n)]));
  },

  /** Moves the campaign from one of `from` to `to`; false when it was in none of them. */
  async setStatus(db: Db, appId: string, id: string, from: string[], to: string, now: number): Promise<boolean> {
    const r = await db
      .updateTable('campaigns')
      .set({ status: to, updated_at: now, ...(to === 'cancelled' || to === 'done' ? { finished_at: now } : {}) })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Recipients still queued become cancelled. */
  async cancelQueued(db: Db, appId: string, campaignId: string): Promise<number> {
    const r = await db
      .updateTable('campaign_recipients')
      .set({ state: 'cancelled' })
      .where('app_id', '=', appId)
      .where('campaign_id', '=', campaignId)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /** Campaigns of every project due to send (active, their time come), oldest first. */
  async dueCampaigns(db: Db, now: number, limit: number): Promise<CampaignRow[]> {
    return db
      .selectFrom('campaigns')
      .selectAll()
      .where('status', '=', 'active')
      .where('send_at', '<=', now)
      .orderBy('send_at')
      .limit(limit)
      .modifyEnd(crossProject('mail-queue'))
      .execute();
  },

  /**
   * Claims up to `limit` queued recipients of the campaign for this worker, moving them to
   * `sending` in the statement that picks them: a row another process claimed first no longer
   * matches `state = 'queued'` when this statement reaches it (SQLite writes one statement at a
   * time; PostgreSQL re-checks the condition on the row it waited for), so each row is claimed once.
   */
  async claim(db: Db, appId: string, campaignId: string, worker: string, now: number, limit: number): Promise<RecipientRow[]> {
    return db
      .updateTable('campaign_recipients')
      .set({ state: 'sending', claimed_by: worker, claimed_at: now })
      .where('app_id', '=', appId)
      .where('state', '=', 'queued')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('campaign_recipients')
          .select('id')
          .where('app_id', '=', appId)
          .where('campaign_id', '=', campaignId)
          .where('state', '=', 'queued')
          .orderBy('id')
          .limit(limit),
      )
      .returningAll()
      .execute();
  },

  /** Ends this worker's `sending` rows in `to` (sent, failed, unknown, suppressed) or back in `queued`. */
  async settle(
    db: Db,
    appId: string,
    ids: string[],
    worker: string,
    to: string,
    set: { sent_at?: number; error?: string | null } = {},
  ): Promise<number> {
    if (ids.length === 0) return 0;
    const r = await db
      .updateTable('campaign_recipients')
      .set({ state: to, ...set, ...(to === 'queued' ? { claimed_by: null, claimed_at: null } : {}) })
      .where('app_id', '=', appId)
      .where('id', 'in', ids)
      .where('state', '=', 'sending')
      .where('claimed_by', '=', worker)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /**
   * Recipients another process left in `sending` longer than the stale time (it stopped, or lost
   * its database): they may have been mailed, so they become `unknown` and are never sent again.
   */
  async staleSending(db: Db, before: number, worker: string): Promise<number> {
    const r = await db
      .updateTable('campaign_recipients')
      .set({ state: 'unknown', error: 'the sending process stopped while this mail was handed to SMTP' })
      .where('state', '=', 'sending')
      .where('claimed_at', '<', before)
      .where('claimed_by', '<>', worker)
      .modifyEnd(crossProject('mail-queue'))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /**
   * Marks the campaign done when nothing of it is queued or being sent. The campaign row is locked
   * first, in a statement of its own: a sequence step queueing a recipient (sequence-mail.repository.ts)
   * updates the row before it inserts the recipient, so the look for queued recipients, a statement
   * begun after that transaction committed, sees the new one.
   */
  async finishIfDrained(db: Db, appId: string, id: string, now: number): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const held = await trx
        .updateTable('campaigns')
        .set({ updated_at: sql<number>`updated_at` })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', '=', 'active')
        .executeTakeFirst();
      if (Number(held.numUpdatedRows) === 0) return false;
      const r = await trx
        .updateTable('campaigns')
        .set({ status: 'done', finished_at: now, updated_at: now })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', '=', 'active')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('campaign_recipients as r')
                .select(sql<number>`1`.as('one'))
                .where('r.app_id', '=', appId)
                .where('r.campaign_id', '=', id)
                .where('r.state', 'in', ['queued', 'sending']),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    });
  },

  async recipient(db: Db, appId: string, id: string): Promise<RecipientRow | undefined> {
    return db.selectFrom('campaign_recipients').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** Adds one to a recipient counter; the count after it, or null for an unknown recipient. */
  async count(db: Db, appId: string, id: string, counter: RecipientCounter): Promise<number | null> {
    const row = await db
      .updateTable('campaign_recipients')
      .set({ [counter]: sql`${sql.ref(counter)} + 1` })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .returning(counter)
      .executeTakeFirst();
    return row === undefined ? null : Number((row as Record<string, unknown>)[counter]);
  },

  async link(db: Db, appId: string, campaignId: string, position: number): Promise<string | null> {
    const row = await db
      .selectFrom('campaign_links')
      .select('url')
      .where('app_id', '=', appId)
      .where('campaign_id', '=', campaignId)
      .where('position', '=', position)
      .executeTakeFirst();
    return row?.url ?? null;
  },
};
