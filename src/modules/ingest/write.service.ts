import { type BehaviourLogsTable, CommitQueueFull, type Database, type DatabaseHandle } from '../../db/index.ts';
import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import { eventRows, eventRowsWriter } from '../../events/outbox.ts';
import { type AppError, overloaded } from '../../http/errors.ts';
import { BOOKKEEPING_ACTIONS, type BehaviourRecords } from '../behaviour/service.ts';
import type { HistoryRecords } from '../histories/service.ts';
import { invalid } from './items.ts';
import type { RowsPlan, WritePlan } from './plans.ts';

const BOOKKEEPING = new Set(BOOKKEEPING_ACTIONS);

/**
 * Each customer's latest activity among behaviour records (every action but the bookkeeping ones):
 * a record's own time, never later than when it was stored (a producer's clock ahead of ours does
 * not put a customer at the top of the list for good).
 */
function latestActivity(rows: Insertable<BehaviourLogsTable>[]): [string, string, number][] {
  const latest = new Map<string, [string, string, number]>();
  for (const r of rows) {
    if (BOOKKEEPING.has(r.action)) continue;
    const at = Math.min(Number(r.when_at), Number(r.created_at));
    const key = `${r.app_id}\u0000${r.customer_id}`;
    const known = latest.get(key);
    if (known === undefined) latest.set(key, [r.app_id, r.customer_id, at]);
    else if (at > known[2]) known[2] = at;
  }
  return [...latest.values()];
}

/**
 * What a caller of the write path writes of its own in the batch's transaction, after the batch's
 * rows (the tasks module's note written with a logged call): both commit, or neither.
 */
export type AlsoWrite = (trx: Transaction<Database>) => Promise<void>;

/** Batches of more records than this have a transaction of their own instead of joining a group. */
const GROUPED_MAX_RECORDS = 64;

/**
 * Stores a batch's Customer bodies, in order, inside the batch transaction (the customers module's
 * engine, handed over by the composition root). Returns the position and error of the first
 * invalid one, when one is (nothing is then written).
 */
export type CustomerWriter = (
  trx: Transaction<Database>,
  appId: string,
  items: { input: Record<string, unknown>; ownerId: number; id: string }[],
  now: number,
) => Promise<{ position: number; error: AppError } | null>;

/**
 * What the links module reads and writes for ingestion (its `createLinkIngestStore`, wired by the
 * composition root): id look-ups, and links, view logs and Duration items written in the caller's
 * transaction, one statement per table and chunk.
 */
export interface LinkStore {
  /** The project each of these ids already belongs to, in one table. */
  storedProjects(table: 'links' | 'link_view_logs', ids: string[]): Promise<Map<string, string>>;
  /** Links of the project among these ids, with their tags. */
  tagsOf(db: Kysely<Database>, appId: string, ids: string[]): Promise<Map<string, string[]>>;
  /** Indexes (values of `tokens`) whose share token a stored link already has. */
  takenShareTokens(db: Kysely<Database>, tokens: Map<string, number>): Promise<number[]>;
  /** The links, view logs and their Duration items of one or many batches, table by table in this order. */
  insert(
    trx: Kysely<Database>,
    rows: {
      links: Insertable<Database['links']>[];
      link_view_logs: Insertable<Database['link_view_logs']>[];
      link_view_durations: Insertable<Database['link_view_durations']>[];
    },
  ): Promise<void>;
  /** Moves a view log on if its last beacon is still `fromSeq` (its new state, its Duration items upserted); false if it moved on. */
  progressView(
    trx: Kysely<Database>,
    p: {
      appId: string;
      viewLogId: string;
      fromSeq: number;
      set: Updateable<Database['link_view_logs']>;
      durations: Insertable<Database['link_view_durations']>[];
    },
  ): Promise<boolean>;
  /** The form record filled while viewing: the view log's clue. */
  /** The view log's clue, and the form's address as its reader's when it has none yet. */
  setViewClue(trx: Kysely<Database>, c: { appId: string; viewLogId: string; clueId: string; email?: string | null }): Promise<void>;
  /** View logs a visitor made before a customer was known, now that customer's (those still without one). */
  attributeViews(
    trx: Kysely<Database>,
    a: { appId: string; viewLogIds: string[]; customerId: string; viewerName: string | null },
  ): Promise<void>;
}

/**
 * What the customers module looks up for a batch's references, and keeps of its records (its
 * `createCustomerIngestLookups`, wired by the composition root).
 */
export interface CustomerLookups {
  /** Raises customers' last activity to these times ([project, customer id, epoch ms]) where earlier, in the caller's transaction. */
  raiseLastActivity(trx: Kysely<Database>, latest: [string, string, number][]): Promise<void>;
  /** The project each of these ids already belongs to. */
  storedProjects(ids: string[]): Promise<Map<string, string>>;
  /** Customers of the project (live, deleted or merged) among these ids, with their owner and the customer a merged one went into. */
  ofProject(appId: string, ids: string[]): Promise<Map<string, { owner_id: number; merged_customer_id: string | null }>>;
}

/**
 * What the scoring module keeps of a batch's records (its keeper, wired by the composition root):
 * the points they earn, added to their customers' scores in the caller's transaction; nothing (no
 * statement) for records that earn none.
 */
export interface ScoreKeeping {
  add(trx: Kysely<Database>, rows: Insertable<BehaviourLogsTable>[]): Promise<void>;
}

/**
 * The owners of the record tables ingestion writes and looks up, each writing its tables in the
 * caller's transaction.
 */
export interface RecordOwners {
  behaviour: BehaviourRecords;
  histories: HistoryRecords;
  links: LinkStore;
  customers: CustomerLookups;
  scores: ScoreKeeping;
}

/**
 * The one write path of ingested rows: each table through its owner (links and their views through
 * links, calls, clues and posts through histories, behaviour records and counters through behaviour, events
 * through the outbox), whole batches per statement, in one fixed table order; small batches joined in
 * a group commit.
 */
export function createRecordWriter(database: DatabaseHandle, deps: RecordOwners & { writeCustomers: CustomerWriter }) {
  const { links, behaviour, histories, customers, scores, writeCustomers } = deps;
  const insertEventRows = eventRowsWriter(database.features);

  /**
   * Rows of many batches, table by table in dependency order: links, then what hangs off links,
   * records (and their customers' scores and last activity), events, counters. The scores come
   * before any other write of customers' rows, so that every writer takes its score locks first.
   */
  async function writeRows(trx: Kysely<Database>, plans: RowsPlan[]): Promise<void> {
    const all = <T>(pick: (p: RowsPlan) => T[]): T[] => (plans.length === 1 ? pick(plans[0] as RowsPlan) : plans.flatMap(pick));
    await links.insert(trx, {
      links: all((p) => p.rows.links),
      link_view_logs: all((p) => p.rows.link_view_logs),
      link_view_durations: all((p) => p.rows.link_view_durations),
    });
    await histories.insert(trx, { clues: all((p) => p.rows.clues), calls: all((p) => p.rows.calls), posts: all((p) => p.rows.posts) });
    const behaviourRows = all((p) => p.behaviourRows);
    await behaviour.insert(trx, behaviourRows);
    await scores.add(trx, behaviourRows);
    await customers.raiseLastActivity(trx, latestActivity(behaviourRows));
    await insertEventRows(
      trx,
      all((p) => p.outbox),
    );
    await behaviour.addCounts(
      trx,
      all((p) => p.rollups),
    );
  }

  const group = database.commitGroup<RowsPlan>(writeRows);

  const rowsOf = (plan: WritePlan): RowsPlan => ({ ...plan, outbox: eventRows(plan.appId, plan.events, plan.now) });

  /** Writes a batch in a transaction of its own: customers first (others may reference them), then the rest. */
  async function writeAlone(trx: Transaction<Database>, plan: WritePlan): Promise<void> {
    if (plan.customers.length > 0) {
      const failed = await writeCustomers(trx, plan.appId, plan.customers, plan.now);
      if (failed) {
        const index = plan.customers[failed.position]?.index ?? 0;
        if (failed.error.kind === 'envelope') throw invalid([{ index, msg: `${failed.error.code}: ${failed.error.message}` }]);
        throw failed.error;
      }
    }
    await writeRows(trx, [rowsOf(plan)]);
  }

  return {
    writeRows,

    /**
     * Writes a validated batch. Small batches without customers join other requests' in one
     * transaction (the group commit); customers, whose writer validates inside the transaction, big
     * batches, which are a group on their own, and batches with rows of the caller's own
     * (`alsoWrite`) get a transaction of their own.
     */
    async write(plan: WritePlan, alsoWrite?: AlsoWrite): Promise<void> {
      if (alsoWrite !== undefined) {
        // The caller's own rows commit with the batch's, so the batch has a transaction of its own.
        await database.db.transaction().execute(async (trx) => {
          if (plan.records > 0) await writeAlone(trx, plan);
          await alsoWrite(trx);
        });
        return;
      }
      if (plan.records === 0) return;
      if (plan.customers.length > 0 || plan.records > GROUPED_MAX_RECORDS) {
        await database.db.transaction().execute((trx) => writeAlone(trx, plan));
        return;
      }
      try {
        await group.submit(rowsOf(plan), plan.records);
      } catch (err) {
        if (err instanceof CommitQueueFull) throw overloaded(err.retryAfterSeconds, err.message);
        throw err;
      }
    },
  };
}

export type RecordWriter = ReturnType<typeof createRecordWriter>;
