import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { Actor } from '../access/service.ts';
import { createPlaybookActions } from './actions.service.ts';
import type { PlaybooksDeps } from './common.ts';
import { type DryRunAnswer, createPlaybookDryRun } from './dry-run.service.ts';
import { createPlaybookEvaluator } from './evaluator.service.ts';
import { createPlaybookManagement } from './manage.service.ts';
import { createPlaybookWebhooks } from './webhooks.service.ts';

export type { HistoryRecord, PlaybookSequences, PlaybooksDeps } from './common.ts';
export type { PassResult, PlaybookEvaluator } from './evaluator.service.ts';
export type { DryRunAnswer } from './dry-run.service.ts';
export { type PlaybookErasure, type PlaybookMergeMoves, createPlaybookErasure, createPlaybookMergeMoves } from './erasure.service.ts';

/**
 * Playbooks (docs/playbooks.md, ADR 0041), one service per kind of caller:
 * - `manage`: the managers' requests (make, change, list, archive, runs);
 * - `dryRun`: what a draft or a saved playbook would have done over the last 30 days;
 * - `evaluator`: the job `playbook-evaluate` (`pass()` for tests): the feed after the cursor
 *   `playbooks`, each record matched, each run made once with its actions;
 * - `webhooks`: the job `playbook-webhooks` (`sendDue()` for tests): the webhook actions' calls.
 */
export function createPlaybooksService(ctx: AppContext, deps: PlaybooksDeps & { defineJob: DefineJob }) {
  const manage = createPlaybookManagement(ctx, deps);
  const dry = createPlaybookDryRun(ctx, deps);
  const webhooks = createPlaybookWebhooks(ctx, deps.defineJob);
  const evaluator = createPlaybookEvaluator(ctx, deps, { actions: createPlaybookActions(ctx, deps), webhooks });
  deps.defineJob(evaluator.job);
  return {
    manage,
    async dryRun(actor: Actor, body: Record<string, unknown>): Promise<DryRunAnswer> {
      const { definition } = await manage.dryRunDefinition(actor, body);
      return dry.run(actor.app.id, definition);
    },
    evaluator,
    webhooks,
  };
}

export type PlaybooksService = ReturnType<typeof createPlaybooksService>;
