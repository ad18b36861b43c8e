import type { AppContext } from '../../context.ts';
import { type EventMessage, writeEvents } from '../../events/outbox.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { CustomerVisibilityReadModel } from '../customers/service.ts';
import type { TasksDeps } from './common.ts';
import { toTask } from './mapper.ts';
import { createTasksRepository } from './tasks.repository.ts';

/** Tasks one pass takes from the queue. */
const SCAN_BATCH = 500;
/** How often a server looks for tasks come due: a due task is announced within a minute. */
export const DUE_SCAN_EVERY_MS = 30_000;

/**
 * The due scan (docs/tasks.md "Due tasks"): open tasks whose due time has come are announced once
 * per due time, each by a Task `due` event (webhooks, NATS, the feed; the alerts' signal). A task is
 * marked as it is announced, in the same transaction, and only if no other server marked it first,
 * so several servers scanning at once announce it once. A task of a customer that is no longer live
 * is marked without an event.
 */
export function createDueScan(ctx: AppContext, deps: Pick<TasksDeps, 'customers'> & { readModel: CustomerVisibilityReadModel }) {
  const { clock } = ctx;
  const db = ctx.database.db;
  const repo = createTasksRepository(deps.readModel);

  /** One project's tasks of the queue: marked and announced in one transaction; returns how many were announced. */
  async function announce(appId: string, ids: string[], now: number): Promise<number> {
    return db.transaction().execute(async (trx) => {
      const claimed = await repo.claimDue(trx, appId, ids, now);
      if (claimed.length === 0) return 0;
      const live = await deps.customers.liveCustomers(appId, [...new Set(claimed.map((t) => t.customer_id))], trx);
      const events: EventMessage[] = [];
      for (const row of claimed) {
        const customer = live.get(row.customer_id);
        if (customer === undefined) continue;
        const body = { ...toTask({ ...row, customer_name: customer.name }, clock, now), svcUserId: String(customer.ownerId) };
        events.push({ event_type: 'due', domainType: 'Task', domainId: row.id, body });
      }
      await writeEvents(trx, appId, events, now);
      return events.length;
    });
  }

  /** One pass over the tasks come due; returns how many it took from the queue (announced or not). */
  async function scan(): Promise<number> {
    const now = clock.now();
    const queue = await repo.dueQueue(db, now, SCAN_BATCH);
    const byApp = new Map<string, string[]>();
    for (const t of queue) byApp.set(t.app_id, [...(byApp.get(t.app_id) ?? []), t.id]);
    for (const [appId, ids] of byApp) await announce(appId, ids, now);
    return queue.length;
  }

  const job: JobDefinition = {
    name: 'task-due',
    idleMs: DUE_SCAN_EVERY_MS,
    // A full batch: more may be waiting, look again at once.
    tick: async () => ((await scan()) === SCAN_BATCH ? 'worked' : 'idle'),
  };

  return { scan, job };
}

export type DueScan = ReturnType<typeof createDueScan>;
