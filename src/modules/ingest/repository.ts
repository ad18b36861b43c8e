import type { Insertable, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { BehaviourRollupsTable } from '../../db/schema.ts';

type Db = Kysely<Database>;

/** Tables that hold ingested records, keyed by their id column. */
export type RecordTable = 'customers' | 'behaviour_logs' | 'calls' | 'links' | 'link_view_logs' | 'clues' | 'posts';

/** Splits rows so one statement never binds more parameters than the dialect allows. */
export function chunks<T>(rows: T[], columns: number, maxParameters: number): T[][] {
  const size = Math.max(1, Math.min(1000, Math.floor(maxParameters / Math.max(1, columns))));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

export const ingestRepository = {
  /** The project each of these ids already belongs to, in one table. */
  async existing(db: Db, table: RecordTable, ids: string[], maxParameters: number): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const part of chunks(ids, 1, maxParameters - 10)) {
      const rows = await db.selectFrom(table).select(['id', 'app_id']).where('id', 'in', part).execute();
      for (const r of rows) found.set(r.id, r.app_id);
    }
    return found;
  },

  /** Live or deleted customers of the project among these ids, with their owner. */
  async customers(db: Db, appId: string, ids: string[], maxParameters: number): Promise<Map<string, { owner_id: number }>> {
    const found = new Map<string, { owner_id: number }>();
    for (const part of chunks(ids, 1, maxParameters - 10)) {
      const rows = await db
        .selectFrom('customers')
        .select(['id', 'owner_id'])
        .where('app_id', '=', appId)
        .where('id', 'in', part)
        .execute();
      for (const r of rows) found.set(r.id, { owner_id: r.owner_id });
    }
    return found;
  },

  /** Links of the project among these ids, with their tags. */
  async links(db: Db, appId: string, ids: string[], maxParameters: number): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const part of chunks(ids, 1, maxParameters - 10)) {
      const rows = await db.selectFrom('links').select(['id', 'tags']).where('app_id', '=', appId).where('id', 'in', part).execute();
      for (const r of rows) found.set(r.id, r.tags ? (JSON.parse(r.tags) as string[]) : []);
    }
    return found;
  },

  /** Indexes (values of `tokens`) whose share token a stored link already has. */
  async takenShareTokens(db: Db, tokens: Map<string, number>, maxParameters: number): Promise<number[]> {
    const taken: number[] = [];
    for (const part of chunks([...tokens.keys()], 1, maxParameters - 10)) {
      const rows = await db.selectFrom('links').select('share_token').where('share_token', 'in', part).execute();
      for (const r of rows) taken.push(tokens.get(r.share_token) as number);
    }
    return taken;
  },

  /** Multi-row inserts, chunked under the parameter limit. */
  async insertMany<T extends keyof Database>(db: Db, table: T, rows: Insertable<Database[T]>[], maxParameters: number): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0] as object).length;
    for (const part of chunks(rows, columns, maxParameters)) {
      // Kysely cannot relate a generic table to its insert shape; the signature above already does.
      await db
        .insertInto(table)
        .values(part as never)
        .execute();
    }
  },

  /** Adds counts to the rollups: one upsert per chunk, already aggregated per key. */
  async addRollups(db: Db, rows: Insertable<BehaviourRollupsTable>[], maxParameters: number): Promise<void> {
    for (const part of chunks(rows, 5, maxParameters)) {
      await db
        .insertInto('behaviour_rollups')
        .values(part)
        .onConflict((oc) =>
          oc.columns(['customer_id', 'day', 'kind', 'key']).doUpdateSet({ count: sql<number>`behaviour_rollups.count + excluded.count` }),
        )
        .execute();
    }
  },
};
