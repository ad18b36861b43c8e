import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure } from '../../http/errors.ts';
import type { Actor } from '../access/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { Enroller } from './enroll.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { ExitReason } from './mapper.ts';
import { sequencesRepository as repo } from './repository.ts';

/** A customer the bulk job could not enrol, and why (an error code). */
export interface EnrollFailure {
  customerId: string;
  code: string;
  reason: string;
}

export interface AutomationDeps {
  customers: Pick<CustomersService, 'visibleLive' | 'liveCustomers'>;
  enroller: Enroller;
  lifecycle: Lifecycle;
}

/**
 * Enrolment and exits as other modules drive them, in their transaction:
 * - the bulk module's action `enroll` (`check` before the job starts, `enrollInTransaction` per
 *   batch): the customers the job's member may see (a Sales member: their own), each once;
 * - the playbooks' actions: `enrollOne` and `exitCustomer`.
 */
export function createSequenceAutomation(ctx: AppContext, deps: AutomationDeps) {
  const db: Kysely<Database> = ctx.database.db;

  async function live(executor: Kysely<Database>, appId: string, sequenceId: string) {
    const s = sequenceId.length > 64 ? undefined : await repo.find(executor, appId, sequenceId);
    if (s === undefined) throw failure('sequence_not_found');
    return s;
  }

  return {
    /** The sequence a bulk enrolment names, checked before the job starts (`sequence_not_found`). */
    async check(actor: Actor, sequenceId: string): Promise<void> {
      await live(db, actor.app.id, sequenceId);
    },

    /** One batch of the bulk job: the customers the actor may see enrolled; the others, and those already enrolled, failed with why. */
    async enrollInTransaction(
      trx: Kysely<Database>,
      actor: Actor,
      step: { sequenceId: string; ids: string[]; now: number },
    ): Promise<{ done: string[]; failures: EnrollFailure[] }> {
      const sequence = await live(trx, actor.app.id, step.sequenceId);
      const visible = await deps.customers.visibleLive(actor, step.ids, trx);
      const failures: EnrollFailure[] = step.ids
        .filter((id) => !visible.has(id))
        .map((customerId) => ({ customerId, code: 'customer_not_found', reason: 'No such customer' }));
      const out = await deps.enroller.enroll(trx, { sequence, enrolledBy: actor.userId, now: step.now }, [...visible.values()]);
      for (const customerId of out.already)
        failures.push({ customerId, code: 'already_enrolled', reason: 'Already enrolled in this sequence (any state)' });
      return { done: out.enrolled, failures };
    },

    /**
     * Enrols one customer of the project (a playbook's action), whoever may see them; `skipped`
     * when the customer or the sequence is gone, or the customer was ever enrolled in it.
     */
    async enrollOne(
      trx: Kysely<Database>,
      input: { appId: string; sequenceId: string; customerId: string; actorId: number },
    ): Promise<'enrolled' | 'skipped'> {
      const sequence = input.sequenceId.length > 64 ? undefined : await repo.find(trx, input.appId, input.sequenceId);
      const customer = (await deps.customers.liveCustomers(input.appId, [input.customerId], trx)).get(input.customerId);
      if (sequence === undefined || customer === undefined) return 'skipped';
      const now = ctx.clock.now();
      const out = await deps.enroller.enroll(trx, { sequence, enrolledBy: input.actorId, now }, [customer]);
      return out.enrolled.length > 0 ? 'enrolled' : 'skipped';
    },

    /** Exits a customer's active or paused enrolments (in one sequence, or all: null) for `reason`; how many exited. */
    async exitCustomer(
      trx: Kysely<Database>,
      input: { appId: string; customerId: string; sequenceId: string | null; reason: ExitReason },
    ): Promise<number> {
      const exit = { appId: input.appId, customerIds: [input.customerId], sequenceId: input.sequenceId, reason: input.reason };
      return (await deps.lifecycle.exitCustomers(trx, exit, ctx.clock.now())).length;
    },
  };
}

export type SequenceAutomation = ReturnType<typeof createSequenceAutomation>;
