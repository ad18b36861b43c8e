import { type Insertable, type Kysely, type Updateable, sql } from 'kysely';
import { type Database, type SequenceEnrollmentsTable, type SequenceStepRunsTable, crossProject } from '../../db/index.ts';
import type { EnrollmentRow, VersionRow } from './mapper.ts';

type Db = Kysely<Database>;

/** An active enrolment of a sequence whose version has a jump, with its deck. */
export interface JumpCandidate {
  id: string;
  customer_id: string;
  step: number;
  own_link_id: string | null;
  deck_link_id: string | null;
  jump: string | null;
}

/** The advisory key that serialises the daily cap's count of a sending member's day (runner.service.ts). */
export function capLockKey(appId: string, ownerId: number, day: string): number {
  let h = 0x5e9c;
  const text = `${appId}\u0000${ownerId}\u0000${day}`;
  for (let i = 0; i < text.length; i += 1) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return 2 ** 41 + (h >>> 0);
}

/** The SQL of the sequences runner and its deck-jump reader (runner.service.ts, jumps.service.ts). */
export const runnerRepository = {
  /** Due active enrolments of every project that no live runner holds, soonest first: the runner's queue. */
  dueQueue(db: Db, q: { now: number; staleBefore: number; limit: number }): Promise<{ app_id: string; id: string }[]> {
    return db
      .selectFrom('sequence_enrollments')
      .select(['app_id', 'id'])
      .where('state', '=', 'active')
      .where('due_at', '<=', q.now)
      .where((w) => w.or([w('claimed_by', 'is', null), w('claimed_at', '<', q.staleBefore)]))
      .orderBy('due_at')
      .limit(q.limit)
      .modifyEnd(crossProject('sequence-runner'))
      .execute();
  },

  /**
   * Claims the project's enrolments of these ids for this worker, those still due and not held: the
   * statement writes the lease and re-checks the conditions on each row, so of two runners that found
   * the same row, one claims it (as the campaign sender's claim: SQLite writes one statement at a time,
   * PostgreSQL re-checks the condition on a row another transaction changed first). A lease older than
   * `staleBefore` (a runner that stopped) is taken over.
   */
  async claim(db: Db, appId: string, ids: string[], q: { worker: string; now: number; staleBefore: number }): Promise<EnrollmentRow[]> {
    if (ids.length === 0) return [];
    return db
      .updateTable('sequence_enrollments')
      .set({ claimed_by: q.worker, claimed_at: q.now })
      .where('app_id', '=', appId)
      .where('id', 'in', ids)
      .where('state', '=', 'active')
      .where('due_at', '<=', q.now)
      .where((w) => w.or([w('claimed_by', 'is', null), w('claimed_at', '<', q.staleBefore)]))
      .returningAll()
      .execute();
  },

  /**
   * Holds a claimed enrolment for its transaction: the row locked, and still as claimed (active, this
   * worker's, at the same step). False when a member paused or exited it, or a jump moved it, meanwhile.
   */
  async hold(db: Db, e: EnrollmentRow, worker: string): Promise<boolean> {
    const r = await db
      .updateTable('sequence_enrollments')
      .set({ claimed_at: sql<number>`claimed_at` })
      .where('app_id', '=', e.app_id)
      .where('id', '=', e.id)
      .where('state', '=', 'active')
      .where('claimed_by', '=', worker)
      .where('step', '=', e.step)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Changes the held enrolment and lets go of its lease; the row after the change. */
  async settle(db: Db, e: EnrollmentRow, patch: Updateable<SequenceEnrollmentsTable>): Promise<EnrollmentRow> {
    return db
      .updateTable('sequence_enrollments')
      .set({ ...patch, claimed_by: null, claimed_at: null })
      .where('app_id', '=', e.app_id)
      .where('id', '=', e.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /**
   * Lets go of this worker's lease on an enrolment (one paused, exited or moved since it was claimed,
   * so that a resume is not kept waiting for the lease), due again at `dueAt` when given and still active.
   */
  async release(db: Db, e: EnrollmentRow, worker: string, dueAt?: number): Promise<void> {
    await db
      .updateTable('sequence_enrollments')
      .set({ claimed_by: null, claimed_at: null })
      .where('app_id', '=', e.app_id)
      .where('id', '=', e.id)
      .where('claimed_by', '=', worker)
      .execute();
    if (dueAt === undefined) return;
    await db
      .updateTable('sequence_enrollments')
      .set({ due_at: dueAt })
      .where('app_id', '=', e.app_id)
      .where('id', '=', e.id)
      .where('state', '=', 'active')
      .where('step', '=', e.step)
      .execute();
  },

  /** The versions these enrolments run. */
  async versions(db: Db, appId: string, keys: { sequenceId: string; version: number }[]): Promise<VersionRow[]> {
    const ids = [...new Set(keys.map((k) => k.sequenceId))];
    if (ids.length === 0) return [];
    const rows = await db.selectFrom('sequence_versions').selectAll().where('app_id', '=', appId).where('sequence_id', 'in', ids).execute();
    const wanted = new Set(keys.map((k) => `${k.sequenceId}:${k.version}`));
    return rows.filter((r) => wanted.has(`${r.sequence_id}:${r.version}`));
  },

  /** The authors of these sequences (their step campaigns are theirs). */
  async authors(db: Db, appId: string, sequenceIds: string[]): Promise<Map<string, number>> {
    if (sequenceIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('sequences')
      .select(['id', 'created_by'])
      .where('app_id', '=', appId)
      .where('id', 'in', sequenceIds)
      .execute();
    return new Map(rows.map((r) => [r.id, Number(r.created_by)]));
  },

  /** Of these enrolments, those whose previous step was skipped by a deck jump (the next one then waits no days). */
  async jumpedTo(db: Db, appId: string, rows: EnrollmentRow[]): Promise<Set<string>> {
    const ids = rows.filter((r) => Number(r.step) > 0).map((r) => r.id);
    if (ids.length === 0) return new Set();
    const runs = await db
      .selectFrom('sequence_step_runs')
      .select(['enrollment_id', 'step'])
      .where('app_id', '=', appId)
      .where('enrollment_id', 'in', ids)
      .where('detail', '=', 'jumped')
      .execute();
    const stepOf = new Map(rows.map((r) => [r.id, Number(r.step)]));
    return new Set(runs.filter((r) => Number(r.step) === (stepOf.get(r.enrollment_id) ?? -1) - 1).map((r) => r.enrollment_id));
  },

  /** E-mail steps a sending member ran on their day (the daily cap's count). */
  async mailsOfDay(db: Db, appId: string, ownerId: number, day: string): Promise<number> {
    const row = await db
      .selectFrom('sequence_step_runs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('app_id', '=', appId)
      .where('owner_id', '=', ownerId)
      .where('day', '=', day)
      .where('kind', '=', 'email')
      .where('outcome', '=', 'queued')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Writes a step run: the primary key makes it once per enrolment and step (a second write fails its transaction). */
  async insertRuns(db: Db, rows: Insertable<SequenceStepRunsTable>[]): Promise<void> {
    if (rows.length > 0) await db.insertInto('sequence_step_runs').values(rows).execute();
  },

  /** Active enrolments of these customers whose version has a jump (the deck-jump reader's look-up). */
  async jumpCandidates(db: Db, appId: string, customerIds: string[]): Promise<JumpCandidate[]> {
    if (customerIds.length === 0) return [];
    return db
      .selectFrom('sequence_enrollments as e')
      .innerJoin('sequence_versions as v', (j) =>
        j.onRef('v.app_id', '=', 'e.app_id').onRef('v.sequence_id', '=', 'e.sequence_id').onRef('v.version', '=', 'e.version'),
      )
      .select(['e.id', 'e.customer_id', 'e.step', 'e.own_link_id', 'v.deck_link_id', 'v.jump'])
      .where('e.app_id', '=', appId)
      .where('v.app_id', '=', appId)
      .where('e.customer_id', 'in', customerIds)
      .where('e.state', '=', 'active')
      .where('v.jump', 'is not', null)
      .execute();
  },

  /**
   * Moves an active enrolment from step `from` to `to`, due now, and ends a runner's lease on it (a
   * runner holding it finds it moved and lets it be); the row after, or undefined when it moved meanwhile.
   */
  async jump(db: Db, appId: string, move: { id: string; from: number; to: number; now: number }): Promise<EnrollmentRow | undefined> {
    return db
      .updateTable('sequence_enrollments')
      .set({ step: move.to, due_at: move.now, last_step_at: move.now, updated_at: move.now, claimed_by: null, claimed_at: null })
      .where('app_id', '=', appId)
      .where('id', '=', move.id)
      .where('state', '=', 'active')
      .where('step', '=', move.from)
      .returningAll()
      .executeTakeFirst();
  },
};
