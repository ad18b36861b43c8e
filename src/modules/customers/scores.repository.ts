/**
 * The customers' score columns (migration 035, docs/scoring.md) as the scoring module writes and
 * reads them: `score_key` (the order key of the score) and `score_rise_at` (when it last rose), set
 * in the caller's transaction; the live customers of a project in id order (the recompute job's
 * batches); and the read model the hot leads start from.
 */
import { type Database, type DatabaseHandle, type DialectFeatures, bulkOps } from '../../db/index.ts';
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';

type Db = Kysely<Database>;

/** A customer's score columns: [project, id, score key, rise time]. */
export type ScoreColumns = [string, string, number, number];

/** What a hot lead shows of its customer. */
export interface RisenCustomer {
  id: string;
  app_id: string;
  owner_id: number;
  name: string | null;
  company: string | null;
  email: string | null;
  email_lower: string | null;
  phone: string | null;
  score_key: number;
  score_rise_at: number;
}

/** Whose customers: a project, and one owner (a Sales member's own) or everyone's. */
export interface RisenScope {
  appId: string;
  ownerId: number | null;
}

/**
 * The read model of the hot leads: the live customers in scope whose score has risen, most recent
 * rise first (the id breaking ties), with what a hot lead shows of them; a walk of the partial index
 * customers_app_rise_idx (the owner checked in it). The caller pages it and joins what it owns.
 */
export function risenCustomers(
  db: Db,
  scope: RisenScope,
  features: Pick<DialectFeatures, 'projectIs'>,
): SelectQueryBuilder<Database, 'customers', RisenCustomer> {
  let q = db
    .selectFrom('customers')
    .select(['id', 'app_id', 'owner_id', 'name', 'company', 'email', 'email_lower', 'phone', 'score_key', 'score_rise_at'])
    .where('app_id', '=', scope.appId);
  // The owner is the index's last column: kept out of SQLite's index choice, which would pick another order's owner index and sort.
  if (scope.ownerId !== null) q = q.where(features.projectIs('owner_id', scope.ownerId));
  // Written out so that the partial index's condition is seen to hold (a bound 0 would not be).
  return q
    .where('status', '=', 1)
    .where(sql<boolean>`score_rise_at > 0`)
    .orderBy('score_rise_at', 'desc')
    .orderBy('id', 'desc') as SelectQueryBuilder<Database, 'customers', RisenCustomer>;
}

/** The score columns' writes and the recompute's walk, in the caller's transaction. */
export function createCustomerScoreColumns(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  return {
    /** Sets customers' score key and rise time, one statement for them all (by primary key, the project checked). */
    async setScores(trx: Db, rows: ScoreColumns[]): Promise<void> {
      if (rows.length === 0) return;
      // In id order: concurrent writers lock shared rows in the same order.
      const sorted = [...rows].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
      await bulk.setColumns(
        trx,
        'customers',
        [
          { name: 'score_key', type: 'float8' },
          { name: 'score_rise_at', type: 'int8' },
        ],
        sorted,
      );
    },

    /** The owners of these customers of the project, by id (one statement; a customer gone is left out). */
    async ownersOf(trx: Db, appId: string, ids: string[]): Promise<Map<string, number>> {
      const rows = await trx
        .selectFrom('customers')
        .select(['id', 'owner_id'])
        .where('app_id', '=', appId)
        .where(bulk.anyOf('id', ids))
        .execute();
      return new Map(rows.map((r) => [r.id, Number(r.owner_id)]));
    },

    /**
     * Up to `limit` live customers of the project after a place in creation order (`''`: from the
     * first), and the place after them: the recompute's next batch, a seek of customers_app_created_idx.
     */
    async liveAfter(db: Db, appId: string, after: string, limit: number): Promise<{ ids: string[]; next: string }> {
      let q = db.selectFrom('customers').select(['id', 'created_at']).where('app_id', '=', appId).where('status', '=', 1);
      const at = /^(\d+):(.+)$/.exec(after);
      if (at !== null) q = q.where(sql<boolean>`(created_at, id) > (${Number(at[1])}, ${at[2]})`);
      const rows = await q.orderBy('created_at').orderBy('id').limit(limit).execute();
      const last = rows.at(-1);
      return { ids: rows.map((r) => r.id), next: last === undefined ? after : `${last.created_at}:${last.id}` };
    },
  };
}

export type CustomerScoreColumns = ReturnType<typeof createCustomerScoreColumns>;
