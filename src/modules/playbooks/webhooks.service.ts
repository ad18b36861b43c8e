import type { AppContext } from '../../context.ts';
import { sendWebhook } from '../../events/webhook-sender.ts';
import type { Job, JobDefinition } from '../../lib/jobs.ts';
import { toRun } from './mapper.ts';
import { type RunRow, playbooksRepository as repo } from './repository.ts';

/** Calls one look takes at most. */
const BATCH = 20;
/** A call taken by a server is its own for this long (another server does not make it meanwhile). */
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;
/** Tries before a call is given up (`dead`), waiting 30 s, 2 min, 8 min, 32 min between them. */
export const WEBHOOK_ATTEMPTS = 5;
const IDLE_MS = 5_000;

/**
 * A playbook's `webhook` action (docs/playbooks.md "Actions"): made after the run commits, by lease,
 * through the SSRF-guarded client (src/events/outbound-http.ts), signed with the playbook's secret as
 * webhooks are (`x-rapport-signature`), tried again with a growing wait, given up after five tries.
 */
export function createPlaybookWebhooks(ctx: AppContext, defineJob: (def: JobDefinition) => Job) {
  const db = ctx.database.db;
  const { clock, config } = ctx;

  async function deliver(row: RunRow): Promise<void> {
    const playbook = await repo.find(db, row.app_id, row.playbook_id);
    const url =
      playbook === undefined
        ? undefined
        : (JSON.parse(playbook.actions) as { type: string; url?: string }[]).find((a) => a.type === 'webhook')?.url;
    if (playbook === undefined || url === undefined) {
      await repo.webhookDone(db, row, {
        webhook_status: 'dead',
        webhook_next_at: null,
        webhook_error: 'the playbook or its webhook was removed',
      });
      return;
    }
    const body = JSON.stringify({
      type: 'playbook.run',
      appId: row.app_id,
      playbookId: playbook.id,
      playbookName: playbook.name,
      run: toRun(row, clock),
    });
    const sent = await sendWebhook(url, playbook.secret, body, [row.id], {
      timeoutMs: TIMEOUT_MS,
      allowPrivate: config.webhookAllowPrivate,
    });
    const attempts = row.webhook_attempts + 1;
    if (sent.ok)
      await repo.webhookDone(db, row, { webhook_status: 'sent', webhook_attempts: attempts, webhook_next_at: null, webhook_error: null });
    else
      await repo.webhookDone(db, row, {
        webhook_status: attempts >= WEBHOOK_ATTEMPTS ? 'dead' : 'pending',
        webhook_attempts: attempts,
        webhook_next_at: attempts >= WEBHOOK_ATTEMPTS ? null : clock.now() + 30_000 * 4 ** (attempts - 1),
        webhook_error: sent.error,
      });
  }

  /** Makes the calls due now; how many were made. */
  async function sendDue(): Promise<number> {
    const now = clock.now();
    let made = 0;
    for (const row of await repo.dueWebhooks(db, now, BATCH)) {
      if (!(await repo.claimWebhook(db, row, now + LEASE_MS))) continue;
      await deliver({ ...row, webhook_next_at: now + LEASE_MS });
      made += 1;
    }
    return made;
  }

  const job = defineJob({
    name: 'playbook-webhooks',
    idleMs: IDLE_MS,
    tick: async () => ((await sendDue()) === BATCH ? 'worked' : 'idle'),
  });
  return { sendDue, poke: () => job.poke() };
}

export type PlaybookWebhooks = ReturnType<typeof createPlaybookWebhooks>;
