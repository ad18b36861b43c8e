import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { Actor } from '../access/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { SequenceDefinitions } from './definitions.service.ts';
import type { Enroller } from './enroll.ts';
import type { EnrollmentsRepository } from './enrollments.repository.ts';
import type { Lifecycle } from './lifecycle.ts';
import { ENROLLMENT_STATES, type EnrollmentResponse, type EnrollmentRow, type EnrollmentState, toEnrollment } from './mapper.ts';
import { sequencesRepository } from './repository.ts';

export interface EnrollmentsDeps {
  customers: Pick<CustomersService, 'visibleLive'>;
  definitions: Pick<SequenceDefinitions, 'found'>;
  enrollments: EnrollmentsRepository;
  lifecycle: Lifecycle;
  enroller: Enroller;
}

/** How a member ends an enrolment by hand. */
export type ManualExit = 'removed' | 'replied';

const notFound = () => failure('enrollment_not_found');
const wrongState = (detail: string) => failure('enrollment_state_invalid', detail);

/**
 * Enrolments as members follow and steer them (docs/sequences.md "Enrolment"): a sequence's
 * enrolments and a customer's, pause, resume, exit, and "replied". A member sees and steers the
 * enrolments of the customers their customer list shows (a Sales member: their own). Each change
 * writes its Enrollment event in its transaction.
 */
export function createEnrollmentService(ctx: AppContext, deps: EnrollmentsDeps) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock } = ctx;
  const repo = deps.enrollments;

  /** The enrolment, if the actor's customer list shows its customer. */
  async function visible(actor: Actor, id: string): Promise<EnrollmentRow> {
    const e = id.length > 64 ? undefined : await repo.find(db, actor.app.id, id);
    if (e === undefined || !(await deps.customers.visibleLive(actor, [e.customer_id])).has(e.customer_id)) throw notFound();
    return e;
  }

  async function withName(actor: Actor, e: EnrollmentRow): Promise<EnrollmentResponse> {
    const names = await sequencesRepository.names(db, actor.app.id, [e.sequence_id]);
    return toEnrollment({ ...e, sequence_name: names.get(e.sequence_id) ?? '' }, clock);
  }

  /** One change of state, guarded by the state it leaves, with its event. */
  async function change(
    actor: Actor,
    e: EnrollmentRow,
    step: {
      from: readonly EnrollmentState[];
      type: 'paused' | 'resumed' | 'exited';
      patch: Parameters<EnrollmentsRepository['transition']>[2];
    },
  ): Promise<EnrollmentResponse> {
    const now = clock.now();
    const row = await db.transaction().execute(async (trx) => {
      const r = await repo.transition(trx, { appId: actor.app.id, id: e.id, from: step.from }, { ...step.patch, updated_at: now });
      if (r === undefined) throw wrongState(`The enrollment is ${(await repo.find(trx, actor.app.id, e.id))?.state ?? 'gone'}`);
      await deps.lifecycle.announce(trx, step.type, [r], now);
      return r;
    });
    return withName(actor, row);
  }

  return {
    /** A page of a sequence's enrolments of the customers the actor may see, newest first, in a state or all. */
    async list(actor: Actor, input: { sequenceId: string; state?: string | undefined; page: Page }): Promise<EnrollmentResponse[]> {
      const s = await deps.definitions.found(actor, input.sequenceId);
      const state = input.state === undefined || input.state === '' ? undefined : (input.state as EnrollmentState);
      if (state !== undefined && !ENROLLMENT_STATES.includes(state))
        throw badRequest(`Invalid parameter 'state': one of ${ENROLLMENT_STATES.join(', ')}`);
      const filter = { appId: actor.app.id, sequenceId: s.id, ownerId: actor.isManager ? null : actor.userId, state };
      const rows = await repo.page(db, filter, input.page.offset, input.page.limit);
      return rows.map((r) => toEnrollment({ ...r, sequence_name: s.name }, clock));
    },

    /** A customer's enrolments (the customer's page), newest first. */
    async ofCustomer(actor: Actor, customerId: string): Promise<EnrollmentResponse[]> {
      if (customerId.length > 64 || !(await deps.customers.visibleLive(actor, [customerId])).has(customerId))
        throw failure('customer_not_found');
      return (await repo.ofCustomer(db, actor.app.id, customerId)).map((r) => toEnrollment(r, clock));
    },

    async get(actor: Actor, id: string): Promise<EnrollmentResponse> {
      return withName(actor, await visible(actor, id));
    },

    /** Pauses an active enrolment: nothing runs until it is resumed. */
    async pause(actor: Actor, id: string): Promise<EnrollmentResponse> {
      const e = await visible(actor, id);
      return change(actor, e, {
        from: ['active'],
        type: 'paused',
        patch: { state: 'paused', due_at: null, claimed_by: null, claimed_at: null },
      });
    },

    /** Resumes a paused enrolment: its next step is placed again from the previous step's time (its wait, the window). */
    async resume(actor: Actor, id: string): Promise<EnrollmentResponse> {
      const e = await visible(actor, id);
      return change(actor, e, { from: ['paused'], type: 'resumed', patch: { state: 'active', due_at: clock.now() } });
    },

    /** Ends an active or paused enrolment: `removed` (the default) or `replied`. */
    async exit(actor: Actor, id: string, reason: ManualExit = 'removed'): Promise<EnrollmentResponse> {
      if (reason !== 'removed' && reason !== 'replied') throw badRequest("Invalid parameter 'reason': removed or replied");
      const e = await visible(actor, id);
      const now = clock.now();
      const patch = { state: 'exited', exit_reason: reason, due_at: null, claimed_by: null, claimed_at: null, ended_at: now };
      return change(actor, e, { from: ['active', 'paused'], type: 'exited', patch });
    },

    /** The customer replied: every active or paused enrolment of theirs exits `replied`; how many did. */
    async replied(actor: Actor, customerId: string): Promise<{ exited: number }> {
      if (customerId.length > 64 || !(await deps.customers.visibleLive(actor, [customerId])).has(customerId))
        throw failure('customer_not_found');
      const now = clock.now();
      const rows = await db
        .transaction()
        .execute((trx) =>
          deps.lifecycle.exitCustomers(trx, { appId: actor.app.id, customerIds: [customerId], sequenceId: null, reason: 'replied' }, now),
        );
      return { exited: rows.length };
    },
  };
}

export type EnrollmentService = ReturnType<typeof createEnrollmentService>;
