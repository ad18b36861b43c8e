import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { JobDefinition, TickOutcome } from '../../lib/jobs.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { CampaignRow, RecipientRow } from './mapper.ts';
import { type CampaignRecords, behaviourRecord } from './records.ts';
import { type MergeValues, renderMail } from './render.ts';
import { campaignsRepository as repo } from './repository.ts';
import { suppressWithEvent } from './suppression.ts';
import type { CampaignTokens } from './tokens.ts';
import type { CampaignTransport, MailTransport } from './transport.ts';

/** How often an idle sender looks for due campaigns. */
const POLL_MS = 1000;
/** How long a sender waits after the SMTP server could not be reached before trying again. */
const SMTP_DOWN_BACKOFF_MS = 5000;
/**
 * Send loops per process: while one writes what its window did (states, counters, behaviour), the
 * others' windows are on the wire. Each has at most one window in `sending`.
 */
const LOOPS = 3;
/** How often a sender looks for recipients a stopped process left in `sending`. */
const STALE_SWEEP_MS = 5000;

/** SMTP errors where the mail certainly did not leave: the connection or log-in failed. */
function notSent(err: { code?: string; command?: string }): boolean {
  return err.code === 'ECONNECTION' || err.code === 'EDNS' || err.code === 'EAUTH' || (err.code === 'ESOCKET' && err.command === 'CONN');
}

type SmtpError = { code?: string; command?: string; responseCode?: number; response?: string; message?: string };

/**
 * The campaign sender (docs/campaigns.md): a background job in each server process that claims
 * windows of due recipients from the durable queue, hands them to SMTP, and settles each as sent,
 * failed, suppressed, unknown or back to queued.
 */
export function createCampaignSender(
  ctx: AppContext,
  deps: {
    transport: CampaignTransport;
    tokens: CampaignTokens;
    records: CampaignRecords;
    /** Where the project's public addresses start: its share domain, else PUBLIC_BASE_URL. */
    publicBase: (appId: string) => Promise<string>;
  },
) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger, config } = ctx;
  const { transport, tokens, records } = deps;
  const worker = `${process.pid}.${randomToken(6)}`;
  const host = new URL(config.publicBaseUrl).hostname;
  /**
   * Recipients claimed per statement and sent at once: enough to keep every pooled connection busy
   * and spread the window's few statements over many mails, few enough that a crash leaves few
   * recipients `unknown` (at most one window per process).
   */
  const WINDOW = Math.max(4, config.mailConnections * 5);
  let smtpDownUntil = 0;
  let sweptAt = Number.NEGATIVE_INFINITY;
  /** Campaigns whose Post record this process has seen stored. */
  const posted = new Set<string>();

  async function send(c: CampaignRow, rec: RecipientRow, from: { name: string; address: string }, t: MailTransport): Promise<void> {
    const u = tokens.urls(await deps.publicBase(c.app_id), await tokens.recipientToken(c.app_id, rec.id));
    const values = JSON.parse(rec.fields) as MergeValues;
    const { html, text } = renderMail(c.html, values, u);
    await t.sendMail({
      from,
      to: values.name ? { name: values.name, address: rec.email } : rec.email,
      subject: c.title,
      html,
      text,
      messageId: `<${rec.id}@${host}>`,
      list: { unsubscribe: u.unsubscribe },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'X-Rapport-Post': c.id },
    });
  }

  /** Settles one recipient whose mail was refused or failed; true when it goes back to the queue. */
  async function settleFailure(appId: string, r: RecipientRow, err: SmtpError, now: number): Promise<boolean> {
    const reason = (err.response ?? err.message ?? String(err)).slice(0, 1000);
    if (typeof err.responseCode === 'number') {
      await repo.settle(db, appId, [r.id], worker, 'failed', { error: reason });
      if (err.responseCode >= 500)
        await suppressWithEvent(db, {
          appId,
          emailNorm: r.email_norm,
          reason: 'bounce',
          detail: reason,
          customerId: r.customer_id,
          postId: r.campaign_id,
          now,
        });
      return false;
    }
    if (notSent(err)) return true;
    await repo.settle(db, appId, [r.id], worker, 'unknown', { error: reason });
    return false;
  }

  /** Sends one claimed window of a campaign; the number of recipients settled. */
  async function sendWindow(c: CampaignRow, batch: RecipientRow[], t: MailTransport): Promise<number> {
    const appId = c.app_id;
    const suppressed = await repo.suppressed(db, appId, [...new Set(batch.map((r) => r.email_norm))]);
    const blocked = batch.filter((r) => suppressed.has(r.email_norm)).map((r) => r.id);
    await repo.settle(db, appId, blocked, worker, 'suppressed', { error: 'the address is unsubscribed or bounced' });
    const go = batch.filter((r) => !suppressed.has(r.email_norm));
    const from = await transport.from(appId);
    const results = await Promise.allSettled(
      go.map(async (r) => {
        await transport.turn();
        await send(c, r, from, t);
      }),
    );
    const sent: RecipientRow[] = [];
    const back: string[] = [];
    const now = clock.now();
    for (const [i, r] of go.entries()) {
      const res = results[i] as PromiseSettledResult<void>;
      if (res.status === 'fulfilled') sent.push(r);
      else if (await settleFailure(appId, r, res.reason as SmtpError, now)) back.push(r.id);
    }
    if (back.length > 0) {
      await repo.settle(db, appId, back, worker, 'queued');
      smtpDownUntil = clock.now() + SMTP_DOWN_BACKOFF_MS;
      logger.warn({ postId: c.id, waiting: back.length }, 'campaigns: the SMTP server cannot be reached; trying again shortly');
    }
    const ids = sent.map((r) => r.id);
    const settled = await repo.settle(db, appId, ids, worker, 'sent', { sent_at: now });
    if (settled > 0) await records.addToPost(appId, c.id, { success_log_count: settled });
    const action = c.material_link_id !== null ? 'send_data_by_mail' : 'mail_sent';
    const content = c.material_link_id !== null ? { linkId: c.material_link_id } : { postId: c.id, title: c.title };
    await records.writeBehaviour(
      c,
      sent.map((r) => behaviourRecord(`mail-sent.${r.id}`, r.customer_id, action, now, content)),
    );
    return batch.length - back.length;
  }

  /** Recipients a stopped process left in `sending`: looked for every few seconds, not every pass. */
  async function sweepStale(now: number): Promise<void> {
    if (now - sweptAt < STALE_SWEEP_MS) return;
    sweptAt = now;
    const stale = await repo.staleSending(db, now - config.mailSendingStaleSeconds * 1000, worker);
    if (stale > 0) logger.warn({ recipients: stale }, 'campaigns: recipients left in sending by a stopped process are now unknown');
  }

  /** One pass over the due campaigns: a window of each. The number of recipients settled. */
  async function pass(): Promise<number> {
    const t = await transport.mailer();
    if (t === null || clock.now() < smtpDownUntil) return 0;
    const now = clock.now();
    await sweepStale(now);
    let settled = 0;
    for (const c of await repo.dueCampaigns(db, now, 20)) {
      if (!posted.has(c.id)) {
        await records.ensurePost(c);
        if (posted.size > 10_000) posted.clear();
        posted.add(c.id);
      }
      const batch = await repo.claim(db, c.app_id, c.id, worker, clock.now(), WINDOW);
      if (batch.length === 0) {
        if (await repo.finishIfDrained(db, c.app_id, c.id, clock.now())) logger.info({ postId: c.id }, 'campaigns: campaign sent');
        continue;
      }
      settled += await sendWindow(c, batch, t);
      if (clock.now() < smtpDownUntil) break;
    }
    return settled;
  }

  async function drainOne(): Promise<void> {
    for (;;) {
      if ((await pass()) > 0) continue;
      if (clock.now() < smtpDownUntil || (await repo.dueCampaigns(db, clock.now(), 1)).length === 0) return;
      // Due, but nothing to claim: another process's mails are in flight.
      await new Promise<void>((resolve) => clock.after(50, resolve));
    }
  }

  const job: JobDefinition = {
    name: 'campaign-sender',
    idleMs: POLL_MS,
    loops: LOOPS,
    async tick(): Promise<TickOutcome> {
      if ((await pass()) > 0) return 'worked';
      const down = smtpDownUntil - clock.now();
      return down > 0 ? { waitMs: down } : 'idle';
    },
    stopped: () => transport.close(),
  };

  return {
    /** This process's name in the queue's `sending` claims. */
    worker,
    /** The background job that sends (defined in the composition root where MAIL_WORKER is on). */
    job,
    /** Sends until nothing is due: what the job does, awaited (tests, the bench). */
    async drain(): Promise<void> {
      await Promise.all(Array.from({ length: LOOPS }, drainOne));
    },
  };
}

export type CampaignSender = ReturnType<typeof createCampaignSender>;
