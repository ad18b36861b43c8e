import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { CustomerScoreColumns } from '../customers/service.ts';
import type { ScoreKeeper } from './keeper.service.ts';
import type { ScoringRepository } from './repository.ts';

/** Customers scored again per transaction: one short write at a time, requests served in between. */
export const RECOMPUTE_BATCH = 100;
/** With nothing to do, a look now and then (a change in another process pokes its own server only). */
const IDLE_MS = 60_000;

/**
 * The background job `scores` (docs/scoring.md, "Recompute"): a project's customers scored again
 * from the records they hold, a batch at a time, after an upgrade (migration 035 marks every project)
 * or a change of its rules, until none is left. Each batch and the project's place commit together,
 * so any server resumes where another stopped; a change of the rules meanwhile starts it again.
 */
export function scoresJob(
  ctx: AppContext,
  deps: { repo: ScoringRepository; keeper: ScoreKeeper; customers: CustomerScoreColumns },
): JobDefinition & { runOnce(): Promise<number> } {
  const { repo, keeper, customers } = deps;
  const db = ctx.database.db;

  /** One batch of one project; returns how many customers it scored (0: nothing was due). */
  async function runOnce(): Promise<number> {
    const due = await repo.pendingRecompute(db);
    if (due === undefined) return 0;
    const appId = due.app_id;
    const from = due.recompute_from;
    return db.transaction().execute(async (trx) => {
      const batch = await customers.liveAfter(trx, appId, from, RECOMPUTE_BATCH);
      if (batch.ids.length > 0) await keeper.recompute(trx, appId, batch.ids);
      await repo.advanceRecompute(trx, appId, from, batch.ids.length < RECOMPUTE_BATCH ? null : batch.next);
      return Math.max(1, batch.ids.length);
    });
  }

  return {
    name: 'scores',
    idleMs: IDLE_MS,
    runOnce,
    tick: async () => ((await runOnce()) > 0 ? 'worked' : 'idle'),
  };
}
