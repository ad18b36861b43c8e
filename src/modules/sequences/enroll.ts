/**
 * Writing new enrolments (docs/sequences.md "Enrolment"), shared by the bulk job's batches and the
 * playbooks' one-at-a-time enrolment, in the caller's transaction: each customer once per sequence
 * (an already enrolled one, whatever its state, is skipped), at the sequence's current version, sent
 * by the customer's owner when they are an active member (else by who enrolled them), due now: the
 * runner places the first step (its wait, the send window) when it first takes it.
 */
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AccessService } from '../access/service.ts';
import type { VisibleCustomer } from '../customers/service.ts';
import type { EnrollmentsRepository } from './enrollments.repository.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { EnrollmentRow, SequenceRow } from './mapper.ts';

export interface EnrollDeps {
  access: Pick<AccessService, 'memberRecord'>;
  enrollments: EnrollmentsRepository;
  lifecycle: Lifecycle;
}

/** What a batch of enrolments did: customers enrolled, and those skipped as already enrolled. */
export interface EnrollOutcome {
  enrolled: string[];
  already: string[];
}

export function createEnroller(ctx: AppContext, deps: EnrollDeps) {
  /** Whether each owner is an active member of the project (asked once per owner). */
  async function activeOwners(appId: string, ownerIds: number[]): Promise<Set<number>> {
    const out = new Set<number>();
    for (const id of new Set(ownerIds)) {
      const m = await deps.access.memberRecord(appId, id);
      if (m !== null && m.status === 0) out.add(id);
    }
    return out;
  }

  return {
    /** Enrols these live customers in the sequence (current version), in the caller's transaction. */
    async enroll(
      trx: Kysely<Database>,
      at: { sequence: SequenceRow; enrolledBy: number; now: number },
      customers: VisibleCustomer[],
    ): Promise<EnrollOutcome> {
      const { sequence, enrolledBy, now } = at;
      const appId = sequence.app_id;
      const ids = customers.map((c) => c.id);
      const already = await deps.enrollments.enrolledOf(trx, appId, sequence.id, ids);
      const fresh = customers.filter((c, i) => !already.has(c.id) && ids.indexOf(c.id) === i);
      const active = await activeOwners(
        appId,
        fresh.map((c) => c.ownerId),
      );
      const rows: EnrollmentRow[] = fresh.map((c) => ({
        id: timeOrderedUuid(now),
        app_id: appId,
        sequence_id: sequence.id,
        version: Number(sequence.version),
        customer_id: c.id,
        owner_id: active.has(c.ownerId) ? c.ownerId : enrolledBy,
        state: 'active',
        exit_reason: null,
        step: 0,
        due_at: now,
        last_step_at: now,
        claimed_by: null,
        claimed_at: null,
        own_link_id: null,
        enrolled_by: enrolledBy,
        enrolled_at: now,
        updated_at: now,
        ended_at: null,
      }));
      await deps.enrollments.insertMany(trx, rows);
      await deps.lifecycle.announce(trx, 'enrolled', rows, now);
      return { enrolled: rows.map((r) => r.customer_id), already: ids.filter((id) => already.has(id)) };
    },
  };
}

export type Enroller = ReturnType<typeof createEnroller>;
