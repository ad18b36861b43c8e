/**
 * The sequences module's SQL of enrolments (enrollments.service.ts, exits.ts, the feed reader):
 * new enrolments in bulk, one by id, a sequence's page (joined to the customers the caller's list
 * shows, through the customers module's read model), a customer's, counts by state, and state
 * changes guarded by the state they leave.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import { type Database, type DialectFeatures, type SequenceEnrollmentsTable, bulkOps } from '../../db/index.ts';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import { type EnrollmentRow, type EnrollmentState, type StateCounts, noCounts } from './mapper.ts';

type Db = Kysely<Database>;

/** Which enrolments a page lists: a sequence's, in a state, of the customers the caller may see. */
export interface EnrollmentFilter {
  appId: string;
  sequenceId: string;
  /** A Sales member's own customers; null for Master and Admin. */
  ownerId: number | null;
  state?: EnrollmentState | undefined;
}

export function createEnrollmentsRepository(features: DialectFeatures, customers: CustomerVisibilityReadModel) {
  const bulk = bulkOps(features);
  return {
    /** The customers among `customerIds` already enrolled in the sequence, whatever the state. */
    async enrolledOf(db: Db, appId: string, sequenceId: string, customerIds: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const part of bulk.lookupChunks(customerIds)) {
        const rows = await db
          .selectFrom('sequence_enrollments')
          .select('customer_id')
          .where('app_id', '=', appId)
          .where('sequence_id', '=', sequenceId)
          .where(bulk.anyOf('customer_id', part))
          .execute();
        for (const r of rows) out.add(r.customer_id);
      }
      return out;
    },

    insertMany(db: Db, rows: Insertable<SequenceEnrollmentsTable>[]): Promise<void> {
      return rows.length === 0 ? Promise.resolve() : bulk.insert(db, 'sequence_enrollments', rows);
    },

    find(db: Db, appId: string, id: string): Promise<EnrollmentRow | undefined> {
      return db.selectFrom('sequence_enrollments').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    },

    /** A page of a sequence's enrolments of customers the caller may see, the newest first. */
    page(db: Db, f: EnrollmentFilter, offset: number, limit: number): Promise<(EnrollmentRow & { customer_name: string | null })[]> {
      let q = db
        .selectFrom('sequence_enrollments as e')
        .innerJoin(customers.listed(db, f.appId, f.ownerId).as('c'), (j) =>
          j.onRef('c.id', '=', 'e.customer_id').onRef('c.app_id', '=', 'e.app_id'),
        )
        .selectAll('e')
        .select('c.name as customer_name')
        .where('e.app_id', '=', f.appId)
        .where('e.sequence_id', '=', f.sequenceId);
      if (f.state !== undefined) q = q.where('e.state', '=', f.state);
      return q.orderBy('e.enrolled_at', 'desc').orderBy('e.id', 'desc').offset(offset).limit(limit).execute();
    },

    /** A customer's enrolments with their sequence's name, the newest first. */
    ofCustomer(db: Db, appId: string, customerId: string): Promise<(EnrollmentRow & { sequence_name: string })[]> {
      return db
        .selectFrom('sequence_enrollments as e')
        .innerJoin('sequences as s', (j) => j.onRef('s.app_id', '=', 'e.app_id').onRef('s.id', '=', 'e.sequence_id'))
        .selectAll('e')
        .select('s.name as sequence_name')
        .where('e.app_id', '=', appId)
        .where('e.customer_id', '=', customerId)
        .orderBy('e.enrolled_at', 'desc')
        .orderBy('e.id', 'desc')
        .limit(200)
        .execute();
    },

    /** Enrolments of these sequences by state. */
    async counts(db: Db, appId: string, sequenceIds: string[]): Promise<Map<string, StateCounts>> {
      const out = new Map<string, StateCounts>();
      if (sequenceIds.length === 0) return out;
      const rows = await db
        .selectFrom('sequence_enrollments')
        .select(['sequence_id', 'state', (eb) => eb.fn.countAll().as('n')])
        .where('app_id', '=', appId)
        .where('sequence_id', 'in', sequenceIds)
        .groupBy(['sequence_id', 'state'])
        .execute();
      for (const r of rows) {
        const c = out.get(r.sequence_id) ?? noCounts();
        c[r.state as EnrollmentState] = Number(r.n);
        out.set(r.sequence_id, c);
      }
      return out;
    },

    /** Changes an enrolment that is still in one of `from`; the row after the change, or undefined when it was not. */
    transition(
      db: Db,
      at: { appId: string; id: string; from: readonly EnrollmentState[] },
      patch: Updateable<SequenceEnrollmentsTable>,
    ): Promise<EnrollmentRow | undefined> {
      return db
        .updateTable('sequence_enrollments')
        .set(patch)
        .where('app_id', '=', at.appId)
        .where('id', '=', at.id)
        .where('state', 'in', [...at.from])
        .returningAll()
        .executeTakeFirst();
    },

    /** The ids of active or paused enrolments of these customers (of one sequence, or any). */
    async openOfCustomers(db: Db, appId: string, customerIds: string[], sequenceId: string | null): Promise<string[]> {
      const out: string[] = [];
      for (const part of bulk.lookupChunks(customerIds)) {
        let q = db
          .selectFrom('sequence_enrollments')
          .select('id')
          .where('app_id', '=', appId)
          .where(bulk.anyOf('customer_id', part))
          .where('state', 'in', ['active', 'paused']);
        if (sequenceId !== null) q = q.where('sequence_id', '=', sequenceId);
        for (const r of await q.execute()) out.push(r.id);
      }
      return out;
    },

    /** Up to `limit` ids of a sequence's active or paused enrolments. */
    async openOfSequence(db: Db, appId: string, sequenceId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('sequence_enrollments')
        .select('id')
        .where('app_id', '=', appId)
        .where('sequence_id', '=', sequenceId)
        .where('state', 'in', ['active', 'paused'])
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /** Exits these enrolments (those still active or paused) for `reason`; the rows exited. */
    async exit(db: Db, appId: string, ids: string[], change: { reason: string; now: number }): Promise<EnrollmentRow[]> {
      const out: EnrollmentRow[] = [];
      for (const part of bulk.lookupChunks(ids)) {
        const rows = await db
          .updateTable('sequence_enrollments')
          .set({
            state: 'exited',
            exit_reason: change.reason,
            due_at: null,
            claimed_by: null,
            claimed_at: null,
            updated_at: change.now,
            ended_at: change.now,
          })
          .where('app_id', '=', appId)
          .where(bulk.anyOf('id', part))
          .where('state', 'in', ['active', 'paused'])
          .returningAll()
          .execute();
        out.push(...rows);
      }
      return out;
    },
  };
}

export type EnrollmentsRepository = ReturnType<typeof createEnrollmentsRepository>;
