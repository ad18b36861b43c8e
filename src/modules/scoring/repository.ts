/**
 * The scoring module's SQL (docs/scoring.md): a project's rules and its recompute's place
 * (`score_settings`), customers' score states (`customer_scores`) read and written in the caller's
 * transaction, the hot leads' page (the customers module's read model joined to the states), and the
 * read model of a customer's reasons the customer lists and the detail select.
 */
import {
  type CustomerScoresTable,
  type CustomersTable,
  type Database,
  type DatabaseHandle,
  type DialectFeatures,
  bulkOps,
  crossProject,
  jsonRowsOf,
  preparedQuery,
} from '../../db/index.ts';
import type { AliasableExpression, ExpressionBuilder, Insertable, Kysely } from 'kysely';
import type { RisenCustomer, RisenCustomersReadModel } from '../customers/mapper.ts';

type Db = Kysely<Database>;

/** The columns of a state the write path replaces on conflict. */
const STATE_COLUMNS = ['value', 'ref_at', 'rise', 'rise_at', 'reasons', 'last_signal', 'marks', 'updated_at'];

const statesOf = preparedQuery('customerScoreStates', ({ db, inList }, appId: string, ids: string[]) =>
  db
    .selectFrom('customer_scores')
    .selectAll()
    .where('app_id', '=', appId)
    .where(inList('customer_id', ids, 'text')),
);

const rulesOf = preparedQuery('scoreRules', ({ db }, appId: string) =>
  db.selectFrom('score_settings').select(['rules', 'recompute_from', 'updated_at']).where('app_id', '=', appId),
);

/** A project's stored rules, when it has set them or has a recompute due. */
export interface SettingsRow {
  rules: string;
  recompute_from: string | null;
  updated_at: number;
}

/** A hot lead's row: its customer (the customers module's read model) and its state's rise, reasons and last signal. */
export type HotLeadRow = RisenCustomer & {
  value: number | null;
  ref_at: number | null;
  rise: number | null;
  reasons: string | null;
  last_signal: string | null;
};

/**
 * A customer's score state (its value, reference time and kept reasons) as one JSON value of the row
 * aliased `c`: the read model the customers module's list, search and detail statements select (one
 * primary-key seek a row). Read it with `readScoreState`.
 */
export function scoreStateReadModel(features: DialectFeatures) {
  return (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>): AliasableExpression<unknown> =>
    features.rowsAsJson(
      eb
        .selectFrom('customer_scores as s')
        .select(['s.value', 's.ref_at', 's.reasons'])
        .whereRef('s.app_id', '=', 'c.app_id')
        .whereRef('s.customer_id', '=', 'c.id'),
      ['value', 'ref_at', 'reasons'],
    );
}

/** A score state selected by `scoreStateReadModel`: null for a customer without one. */
export function readScoreState(v: unknown): { value: number; refAt: number; reasons: string } | null {
  if (v === null || v === undefined) return null;
  const [row] = jsonRowsOf(v);
  if (row === undefined) return null;
  return { value: Number(row[0]), refAt: Number(row[1]), reasons: String(row[2]) };
}

/** The hot leads' statements, started from the customers module's read model of risen customers. */
function hotQueries(risenCustomers: RisenCustomersReadModel, features: DialectFeatures) {
  const page = (db: Db, appId: string, ownerId: number | null, offset: number, limit: number) =>
    db
      .selectFrom(risenCustomers(db, { appId, ownerId }, features).offset(offset).limit(limit).as('c'))
      .leftJoin('customer_scores as s', (j) => j.onRef('s.app_id', '=', 'c.app_id').onRef('s.customer_id', '=', 'c.id'))
      .selectAll('c')
      .select(['s.value', 's.ref_at', 's.rise', 's.reasons', 's.last_signal'])
      .orderBy('c.score_rise_at', 'desc')
      .orderBy('c.id', 'desc');
  return {
    /** The hot leads' pages: of the project, or of one owner (a Sales member's own). */
    all: preparedQuery('hotLeads_all', ({ db }, appId: string, offset: number, limit: number) => page(db, appId, null, offset, limit)),
    owned: preparedQuery('hotLeads_owned', ({ db }, appId: string, ownerId: number, offset: number, limit: number) =>
      page(db, appId, ownerId, offset, limit),
    ),
    /** The customers a grouped page is made from: the most recently risen ones in scope, without their states. */
    windowAll: preparedQuery('hotWindow_all', ({ db }, appId: string, limit: number) =>
      risenCustomers(db, { appId, ownerId: null }, features).limit(limit),
    ),
    windowOwned: preparedQuery('hotWindow_owned', ({ db }, appId: string, ownerId: number, limit: number) =>
      risenCustomers(db, { appId, ownerId }, features).limit(limit),
    ),
  };
}

/**
 * A customer's score lock key: a hash of its project and id above 2^40, apart from the other advisory
 * locks' keys (32-bit hashes and small constants), so that a score lock never waits on another kind.
 */
export function scoreLockKey(appId: string, customerId: string): number {
  let h = 0x5c0e;
  const text = `${appId}\u0000${customerId}`;
  for (let i = 0; i < text.length; i += 1) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return 2 ** 40 + (h >>> 0);
}

export function createScoringRepository(database: DatabaseHandle, risenCustomers: RisenCustomersReadModel) {
  const bulk = bulkOps(database.features);
  const hot = hotQueries(risenCustomers, database.features);
  return {
    /**
     * The project's stored rules and recompute place, as committed (the prepared reader: never the
     * caller's transaction), kept in process until the next commit to score_settings in any process
     * (the topic `scoring`). Null: no row, the default rules.
     */
    settings(appId: string): Promise<SettingsRow | null> {
      const cache = database.cache<string, SettingsRow | null>('score-settings', 'scoring', 10_000);
      return cache.get(appId, async () => (await database.reader.first(rulesOf, appId)) ?? null);
    },

    /** Stores the project's rules and starts its recompute from the first customer. */
    async saveRules(trx: Db, appId: string, rules: string, by: number, now: number): Promise<void> {
      await trx
        .insertInto('score_settings')
        .values({ app_id: appId, rules, recompute_from: '', updated_by: by, updated_at: now })
        .onConflict((oc) => oc.column('app_id').doUpdateSet({ rules, recompute_from: '', updated_by: by, updated_at: now }))
        .execute();
    },

    /** A project with customers to score again, and where its recompute stands (any project: the job's look for work). */
    pendingRecompute(db: Db): Promise<{ app_id: string; recompute_from: string } | undefined> {
      return db
        .selectFrom('score_settings')
        .select(['app_id', 'recompute_from'])
        .where('recompute_from', 'is not', null)
        .limit(1)
        .modifyEnd(crossProject('score-recompute'))
        .executeTakeFirst() as Promise<{ app_id: string; recompute_from: string } | undefined>;
    },

    /** Moves a recompute on from `from` to `to` (null: done), unless the rules changed meanwhile (it then starts again); false then. */
    async advanceRecompute(trx: Db, appId: string, from: string, to: string | null): Promise<boolean> {
      const r = await trx
        .updateTable('score_settings')
        .set({ recompute_from: to })
        .where('app_id', '=', appId)
        .where('recompute_from', '=', from)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * Serialises this transaction against every other that changes these customers' scores until it
     * ends (PostgreSQL: advisory locks in one statement, keys in order; SQLite's single writer needs none).
     */
    lockCustomers(trx: Db, appId: string, ids: string[]): Promise<void> {
      return database.features.transactionLock(
        trx,
        ids.map((id) => scoreLockKey(appId, id)),
      );
    },

    /**
     * The stored states of the project's customers among these ids, in the caller's transaction: one
     * prepared statement (the list bound as one parameter), built once rather than per batch.
     */
    async states(trx: Db, appId: string, ids: string[]): Promise<CustomerScoresTable[]> {
      const reader = database.readerFor(trx);
      const out: CustomerScoresTable[] = [];
      for (const part of bulk.lookupChunks(ids)) out.push(...((await reader.all(statesOf, appId, part)) as CustomerScoresTable[]));
      return out;
    },

    /** Stores states (inserted, or replacing the stored ones), in customer order: one statement per chunk. */
    async saveStates(trx: Db, rows: Insertable<CustomerScoresTable>[]): Promise<void> {
      if (rows.length === 0) return;
      const sorted = [...rows].sort((a, b) => (a.customer_id < b.customer_id ? -1 : a.customer_id > b.customer_id ? 1 : 0));
      await bulk.upsert(trx, 'customer_scores', sorted, ['app_id', 'customer_id'], STATE_COLUMNS);
    },

    /** Deletes the project's states of these customers; returns how many. */
    async deleteStates(trx: Db, appId: string, ids: string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const r = await trx
        .deleteFrom('customer_scores')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', ids))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** A page of the hot leads in scope: customers by their latest rise, with their states. */
    hotLeads(appId: string, ownerId: number | null, offset: number, limit: number): Promise<HotLeadRow[]> {
      const reader = database.reader;
      return (
        ownerId === null ? reader.all(hot.all, appId, offset, limit) : reader.all(hot.owned, appId, ownerId, offset, limit)
      ) as Promise<HotLeadRow[]>;
    },

    /** The `limit` most recently risen customers in scope (the grouped hot leads' window), without their states. */
    hotWindow(appId: string, ownerId: number | null, limit: number): Promise<RisenCustomer[]> {
      const reader = database.reader;
      return (ownerId === null ? reader.all(hot.windowAll, appId, limit) : reader.all(hot.windowOwned, appId, ownerId, limit)) as Promise<
        RisenCustomer[]
      >;
    },

    /** The states of the project's customers among these ids, as committed (a grouped page's members). */
    async committedStates(appId: string, ids: string[]): Promise<CustomerScoresTable[]> {
      if (ids.length === 0) return [];
      return database.db
        .selectFrom('customer_scores')
        .selectAll()
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', ids))
        .execute();
    },
  };
}

export type ScoringRepository = ReturnType<typeof createScoringRepository>;
