import { CommitQueueFull, type Database, type DatabaseHandle } from '../../db/index.ts';
import type { Kysely, Transaction } from 'kysely';
import { eventRows, eventRowsWriter } from '../../events/outbox.ts';
import { type AppError, overloaded } from '../../http/errors.ts';
import type { BehaviourRecords } from '../behaviour/service.ts';
import type { HistoryRecords } from '../histories/service.ts';
import { invalid } from './items.ts';
import type { RowsPlan, WritePlan } from './plans.ts';
import type { createIngestRepository } from './repository.ts';

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

/** The owners of the record tables ingestion writes, each writing its tables in the caller's transaction. */
export interface RecordOwners {
  behaviour: BehaviourRecords;
  histories: HistoryRecords;
}

/**
 * The one write path of ingested rows: each table through its owner (links and their views here,
 * calls, clues and posts through histories, behaviour records and counters through behaviour, events
 * through the outbox), whole batches per statement, in one fixed table order; small batches joined in
 * a group commit.
 */
export function createRecordWriter(
  database: DatabaseHandle,
  deps: RecordOwners & { repo: ReturnType<typeof createIngestRepository>; writeCustomers: CustomerWriter },
) {
  const { repo, behaviour, histories, writeCustomers } = deps;
  const insertEventRows = eventRowsWriter(database.features);

  /** Rows of many batches, table by table in dependency order: links, then what hangs off links, records, events, counters. */
  async function writeRows(trx: Kysely<Database>, plans: RowsPlan[]): Promise<void> {
    const all = <T>(pick: (p: RowsPlan) => T[]): T[] => (plans.length === 1 ? pick(plans[0] as RowsPlan) : plans.flatMap(pick));
    await repo.insertLinkRows(trx, {
      links: all((p) => p.rows.links),
      link_view_logs: all((p) => p.rows.link_view_logs),
      link_view_durations: all((p) => p.rows.link_view_durations),
    });
    await histories.insert(trx, { clues: all((p) => p.rows.clues), calls: all((p) => p.rows.calls), posts: all((p) => p.rows.posts) });
    await behaviour.insert(
      trx,
      all((p) => p.behaviourRows),
    );
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
     * transaction (the group commit); customers, whose writer validates inside the transaction, and
     * big batches, which are a group on their own, get a transaction of their own.
     */
    async write(plan: WritePlan): Promise<void> {
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
