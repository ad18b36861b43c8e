/**
 * The alerts module's SQL of the evaluator (docs/alerts.md "How a signal travels"): signals once per
 * key, readings in progress, and the notifications a signal makes, each in the caller's transaction.
 */
import { type AlertReadingsTable, type AlertSignalsTable, type Database, type NotificationsTable, crossProject } from '../../db/index.ts';
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';

type Db = Kysely<Database>;
export type ReadingRow = Selectable<AlertReadingsTable>;

export const signalsRepository = {
  /** Which of these keys the project already has a signal for. */
  async existingKeys(db: Db, appId: string, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await db.selectFrom('alert_signals').select('key').where('app_id', '=', appId).where('key', 'in', keys).execute();
    return new Set(rows.map((r) => r.key));
  },

  /** Signals of a kind about a customer since a time, delivered ones only (the hourly cap). */
  async countSince(db: Db, appId: string, q: { customerId: string; signal: string; since: number }): Promise<number> {
    const row = await db
      .selectFrom('alert_signals')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('customer_id', '=', q.customerId)
      .where('signal', '=', q.signal)
      .where('created_at', '>=', q.since)
      .where('suppressed', '=', 0)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /** Whether the customer's open of this link was already signalled since a time (a reopen is no news). */
  async signalledSince(db: Db, appId: string, q: { customerId: string; signal: string; subject: string; since: number }): Promise<boolean> {
    const row = await db
      .selectFrom('alert_signals')
      .select('id')
      .where('app_id', '=', appId)
      .where('customer_id', '=', q.customerId)
      .where('signal', '=', q.signal)
      .where('created_at', '>=', q.since)
      .where('subject', '=', q.subject)
      .where('suppressed', '=', 0)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  async insertSignal(db: Db, row: Insertable<AlertSignalsTable>): Promise<void> {
    await db.insertInto('alert_signals').values(row).execute();
  },

  async insertNotifications(db: Db, rows: Insertable<NotificationsTable>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100) {
      await db
        .insertInto('notifications')
        .values(rows.slice(i, i + 100))
        .onConflict((oc) => oc.columns(['app_id', 'signal_id', 'user_id']).doNothing())
        .execute();
    }
  },

  /** The project's readings among these views. */
  async readings(db: Db, appId: string, viewIds: string[]): Promise<Map<string, ReadingRow>> {
    if (viewIds.length === 0) return new Map();
    const rows = await db.selectFrom('alert_readings').selectAll().where('app_id', '=', appId).where('view_id', 'in', viewIds).execute();
    return new Map(rows.map((r) => [r.view_id, r]));
  },

  /** Readings as the pass left them: new ones made, known ones moved on (a reading already ended stays ended). */
  async saveReadings(db: Db, rows: ReadingRow[]): Promise<void> {
    for (const r of rows) {
      await db
        .insertInto('alert_readings')
        .values(r)
        .onConflict((oc) =>
          oc.columns(['app_id', 'view_id']).doUpdateSet((eb) => ({
            last_page_at: sql<number>`case when excluded.last_page_at > alert_readings.last_page_at then excluded.last_page_at else alert_readings.last_page_at end`,
            ended_at: eb.fn.coalesce('alert_readings.ended_at', eb.ref('excluded.ended_at')),
            hot: eb.fn.coalesce('excluded.hot', eb.ref('alert_readings.hot')),
          })),
        )
        .execute();
    }
  },

  /** The readings in progress of these customers of the project (a hot lead's reading, to fold it into). */
  async openReadingsOf(db: Db, appId: string, customerIds: string[]): Promise<ReadingRow[]> {
    if (customerIds.length === 0) return [];
    return db
      .selectFrom('alert_readings')
      .selectAll()
      .where('app_id', '=', appId)
      .where('customer_id', 'in', customerIds)
      .where('ended_at', 'is', null)
      .execute();
  },

  /** Ends a reading, unless another pass ended it first: false then (its signal is that pass's). */
  async endReading(db: Db, appId: string, viewId: string, at: number): Promise<boolean> {
    const r = await db
      .updateTable('alert_readings')
      .set({ ended_at: at })
      .where('app_id', '=', appId)
      .where('view_id', '=', viewId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Readings in progress whose last page record is older than `before`, in every project (the quiet end). */
  quietReadings(db: Db, before: number, limit: number): Promise<ReadingRow[]> {
    return db
      .selectFrom('alert_readings')
      .selectAll()
      .where('ended_at', 'is', null)
      .where('last_page_at', '<', before)
      .orderBy('last_page_at')
      .limit(limit)
      .modifyEnd(crossProject('alert-readings'))
      .execute();
  },
};
