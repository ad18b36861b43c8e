/**
 * An enrolment's changes of state with their Enrollment events (docs/sequences.md "Events out"),
 * each in the caller's transaction: what the members' requests, the playbooks, the feed reader,
 * merges and a sequence's archiving share.
 */
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { type EventMessage, type EventType, bulkEventWriter } from '../../events/outbox.ts';
import type { EnrollmentsRepository } from './enrollments.repository.ts';
import { type EnrollmentRow, type ExitReason, enrollmentEventBody } from './mapper.ts';

/** Enrolments of customers to end: of one sequence, or of every sequence (null). */
export interface CustomerExit {
  appId: string;
  customerIds: string[];
  sequenceId: string | null;
  reason: ExitReason;
}

export function createLifecycle(ctx: AppContext, repo: EnrollmentsRepository) {
  const { clock } = ctx;
  const writeEvents = bulkEventWriter(ctx.database.features);

  /** An Enrollment event of the row as it stands after the change. */
  function event(type: EventType, row: EnrollmentRow, extra: Record<string, unknown> = {}): EventMessage {
    return { event_type: type, domainType: 'Enrollment', domainId: row.id, body: enrollmentEventBody(row, clock, extra) };
  }

  async function announce(trx: Kysely<Database>, type: EventType, rows: EnrollmentRow[], now: number): Promise<void> {
    const byApp = new Map<string, EnrollmentRow[]>();
    for (const r of rows) byApp.set(r.app_id, [...(byApp.get(r.app_id) ?? []), r]);
    for (const [appId, list] of byApp)
      await writeEvents(
        trx,
        appId,
        list.map((r) => event(type, r)),
        now,
      );
  }

  /** Exits these enrolments (those still active or paused), each with its `exited` event; the rows exited. */
  async function exitIds(trx: Kysely<Database>, appId: string, ids: string[], change: { reason: ExitReason; now: number }) {
    if (ids.length === 0) return [];
    const rows = await repo.exit(trx, appId, ids, change);
    await announce(trx, 'exited', rows, change.now);
    return rows;
  }

  return {
    event,
    announce,
    exitIds,

    /** Exits the active or paused enrolments of these customers (in one sequence, or all); the rows exited. */
    async exitCustomers(trx: Kysely<Database>, exit: CustomerExit, now: number): Promise<EnrollmentRow[]> {
      if (exit.customerIds.length === 0) return [];
      const ids = await repo.openOfCustomers(trx, exit.appId, exit.customerIds, exit.sequenceId);
      return exitIds(trx, exit.appId, ids, { reason: exit.reason, now });
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
