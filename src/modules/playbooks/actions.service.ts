import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { type BusinessCode, AppError, failure } from '../../http/errors.ts';
import type { PlaybooksDeps } from './common.ts';
import type { Action, Definition } from './definition.ts';
import type { CustomerFacts, Occurrence } from './matching.ts';
import { playbooksRepository as repo } from './repository.ts';
import { describeTrigger } from './words.ts';

/** What one action did to the customer, as a run records it. */
export interface ActionOutcome {
  type: Action['type'];
  ok: boolean;
  /** What it made or changed (a task's id, the members told, `enrolled`/`skipped`…). */
  detail?: Record<string, unknown>;
  /** Why it did nothing: an error code (`group_owner_mismatch`, `customer_not_found`…). */
  error?: string;
}

/** The run an action belongs to. */
export interface RunContext {
  runId: string;
  playbookId: string;
  createdBy: number;
  definition: Definition;
  customer: CustomerFacts;
  occurrence: Occurrence;
  now: number;
}

const HOUR_MS = 3_600_000;

/**
 * A playbook's actions (docs/playbooks.md "Actions"), each through the module that owns what it
 * changes, in the run's transaction: a task (tasks), a notice (alerts: the inbox and the chat
 * channels), an enrolment or exit (sequences), a group move and a field (customers, with the rights of
 * the playbook's author). Each action runs in a savepoint: one that fails (the group is another
 * member's, the sequence was deleted) is undone alone and recorded with its error code, and the
 * others still happen. A webhook call is recorded `pending`, made after the transaction commits.
 */
export function createPlaybookActions(ctx: AppContext, deps: PlaybooksDeps) {
  async function guarded(trx: Kysely<Database>, type: Action['type'], fn: () => Promise<Record<string, unknown>>): Promise<ActionOutcome> {
    const point = await repo.savepoint(trx);
    try {
      const detail = await fn();
      await point.keep();
      return { type, ok: true, detail };
    } catch (err) {
      await point.undo();
      if (err instanceof AppError) return { type, ok: false, error: err.code };
      ctx.logger.warn({ err, type }, 'playbook action failed');
      return { type, ok: false, error: 'action_failed' };
    }
  }

  async function author(r: RunContext) {
    try {
      return await deps.access.membership(r.occurrence.appId, r.createdBy);
    } catch (err) {
      if (err instanceof AppError) throw failure('member_not_found', "The playbook's author is no longer a member");
      throw err;
    }
  }

  async function one(trx: Kysely<Database>, a: Action, r: RunContext): Promise<Record<string, unknown>> {
    const appId = r.occurrence.appId;
    const customerId = r.customer.id;
    switch (a.type) {
      case 'create_task': {
        const task = await deps.tasks.createInTransaction(trx, {
          appId,
          customerId,
          assigneeId: null,
          title: a.title,
          kind: a.kind,
          dueAt: r.now + a.dueInHours * HOUR_MS,
          creatorId: r.createdBy,
        });
        if (task === null) throw failure('customer_not_found');
        return { taskId: task.id, assigneeId: task.assigneeId };
      }
      case 'notify': {
        const words = describeTrigger(r.definition.trigger);
        const told = await deps.notices.tell(
          trx,
          {
            appId,
            key: `playbook:${r.runId}`,
            customerId,
            to: a.to,
            inbox: a.channels.includes('inbox'),
            chat: a.channels.includes('chat'),
            playbookId: r.playbookId,
            playbookName: r.definition.name,
            what: words.en,
            whatZh: words.zh,
            at: r.occurrence.at,
          },
          r.now,
        );
        if (told === null) throw failure('customer_not_found');
        return { members: told.members, channels: told.channels };
      }
      case 'enroll':
        return { result: await deps.sequences.enrollOne(trx, { appId, sequenceId: a.sequenceId, customerId, actorId: r.createdBy }) };
      case 'exit_sequence': {
        const exited = await deps.sequences.exitCustomer(trx, { appId, customerId, sequenceId: a.sequenceId, reason: 'playbook' });
        return { sequenceId: a.sequenceId, exited };
      }
      case 'move_to_group': {
        const out = await deps.customers.bulk.groupInTransaction(trx, await author(r), {
          ids: [customerId],
          now: r.now,
          groupId: a.groupId,
        });
        const failed = out.failures[0];
        if (failed !== undefined) throw failure(failed.code as BusinessCode, failed.reason);
        return { groupId: a.groupId };
      }
      case 'set_field':
        await deps.customers.api.editInTransaction(trx, await author(r), {
          ownerId: String(r.customer.ownerId),
          customerId,
          body: { [a.key]: a.value },
        });
        return { key: a.key, value: a.value };
      case 'webhook':
        return { status: 'pending' };
    }
  }

  return {
    /** Every action of the run, in order, in its transaction. */
    async run(trx: Kysely<Database>, r: RunContext): Promise<ActionOutcome[]> {
      const out: ActionOutcome[] = [];
      for (const a of r.definition.actions) out.push(await guarded(trx, a.type, () => one(trx, a, r)));
      return out;
    },
  };
}

export type PlaybookActions = ReturnType<typeof createPlaybookActions>;
