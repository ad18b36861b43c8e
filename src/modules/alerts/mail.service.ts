import type { AppContext } from '../../context.ts';
import { retryDelay } from '../../events/relay.ts';
import type { JobDefinition, TickOutcome } from '../../lib/jobs.ts';
import { nextLocalHour, zoneClock } from '../../lib/zones.ts';
import { type AlertsDeps, customerUrl } from './common.ts';
import type { InboxRepository } from './inbox.repository.ts';
import { type MailRow, mailRepository as repo } from './mail.repository.ts';
import { digestMail, instantMail } from './mail-text.ts';
import { type SettingsRow, settingsRepository } from './repository.ts';
import { settingsOfRow } from './settings.ts';
import { type MembershipsOf, standingOf } from './settings.service.ts';

/** Instant mails one tick sends at most. */
const MAIL_BATCH = 20;
/** A mail being sent is held this long: a server that stops mid-send leaves it to another after. */
const MAIL_LEASE_MS = 60_000;
/** A mail failing for this long is given up (dead). */
const MAIL_DEAD_AFTER_MS = 24 * 60 * 60 * 1000;
/** How often the mailer looks for instant mails when idle (a poke from the evaluator comes sooner). */
export const MAIL_EVERY_MS = 5_000;
/** How often the digest job looks for digests due. */
export const DIGEST_EVERY_MS = 60_000;
/** A digest that could not be sent is tried again after this. */
const DIGEST_RETRY_MS = 5 * 60_000;
/** Lines one digest lists; the rest are counted. */
const DIGEST_LINES = 200;
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Alert e-mails (docs/alerts.md "E-mail") through the campaigns' SMTP transport (its pool and send
 * rate): an instant mail per notification queued, and a member's daily digest at their local hour.
 * Each is checked again when it leaves: a member no longer active, or no longer allowed to see the
 * customer, gets nothing. Every server runs both; a mail is taken by a lease and a digest by moving
 * the member's next digest to the next day, so each goes out once.
 */
export function createAlertMail(ctx: AppContext, deps: AlertsDeps, inbox: InboxRepository, memberships: MembershipsOf) {
  const db = ctx.database.db;
  const { clock, config, logger } = ctx;

  /** Whether the member may still be told about the customer (the customer list's rule). */
  async function stillVisible(m: MailRow): Promise<boolean> {
    const member = await deps.access.memberRecord(m.app_id, m.user_id).catch(() => null);
    if (member === null || member.status !== 0) return false;
    const customer = (await deps.customers.liveCustomers(m.app_id, [m.customer_id])).get(m.customer_id);
    return customer !== undefined && (member.role !== 'Sales' || customer.ownerId === m.user_id);
  }

  async function sendOne(m: MailRow, lease: number): Promise<void> {
    const now = clock.now();
    const user = await deps.accounts.userById(m.user_id);
    const transport = deps.mail.configured() ? await deps.mail.mailer() : null;
    if (!(await stillVisible(m)) || !user?.email || transport === null) {
      const why =
        transport === null ? 'SMTP_URL is not set' : !user?.email ? 'the member has no e-mail address' : 'no longer visible to the member';
      return repo.settle(db, m, { mail_status: 'dropped', mail_error: why, mail_next_at: null });
    }
    const settings = settingsOfRow(await settingsRepository.find(db, m.user_id), config.timeZone);
    const project = await deps.projects.name(m.app_id);
    const text = instantMail(
      { title: m.title, text: m.body, url: customerUrl(config.publicBaseUrl, m.app_id, m.customer_id), project },
      settings.locale,
      config.publicBaseUrl,
    );
    try {
      await deps.mail.turn();
      const from = await deps.mail.from(m.app_id);
      await transport.sendMail({
        from,
        to: user.email,
        subject: text.subject,
        text: text.text,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      await repo.settle(db, m, {
        mail_status: 'sent',
        mailed_at: clock.now(),
        mail_next_at: null,
        mail_error: null,
        mail_attempts: m.mail_attempts + 1,
      });
    } catch (err) {
      const attempts = m.mail_attempts + 1;
      const dead = now - m.created_at >= MAIL_DEAD_AFTER_MS;
      logger.warn({ err, notification: m.id, attempts }, 'alerts: an alert e-mail could not be sent; will retry');
      await repo.settle(db, m, {
        mail_status: dead ? 'dead' : 'queued',
        mail_attempts: attempts,
        mail_next_at: dead ? null : Math.max(lease, now) + retryDelay(attempts, 30_000, 60 * 60_000),
        mail_error: (err instanceof Error ? err.message : String(err)).slice(0, 500),
      });
    }
  }

  /** One tick of instant mails: those due, each taken by a lease first. Returns how many it took. */
  async function sendInstant(): Promise<number> {
    const now = clock.now();
    let taken = 0;
    for (const m of await repo.due(db, now, MAIL_BATCH)) {
      const lease = now + MAIL_LEASE_MS;
      if (!(await repo.claim(db, m, lease))) continue;
      taken += 1;
      await sendOne({ ...m, mail_next_at: lease }, lease);
    }
    return taken;
  }

  /** A member's digest: their lines they may still see, oldest first, in their language and zone; the others dropped. */
  async function digestOf(s: SettingsRow, now: number): Promise<'sent' | 'empty' | 'failed'> {
    const settings = settingsOfRow(s, config.timeZone);
    const { names, ...standing } = await standingOf(memberships, s.user_id);
    const filter = { userId: s.user_id, standing, kind: 'digest' as const };
    const rows = names.size === 0 ? [] : (await inbox.page(db, filter, 0, DIGEST_LINES)).reverse();
    const pending = await inbox.pendingDigest(db, s.user_id, now);
    const user = await deps.accounts.userById(s.user_id);
    const transport = deps.mail.configured() ? await deps.mail.mailer() : null;
    if (rows.length > 0 && user?.email && transport !== null) {
      const zone = zoneClock(settings.timeZone) ?? clock;
      const lines = rows.map((r) => ({
        project: names.get(r.app_id) ?? null,
        at: zone.format(r.created_at).slice(0, 16),
        title: r.title,
        url: customerUrl(config.publicBaseUrl, r.app_id, r.customer_id),
      }));
      const more = Math.max(0, (await inbox.count(db, filter)) - rows.length);
      const text = digestMail(lines, more, settings.locale, config.publicBaseUrl);
      try {
        await deps.mail.turn();
        await transport.sendMail({
          from: config.smtpFrom,
          to: user.email,
          subject: text.subject,
          text: text.text,
          headers: { 'Auto-Submitted': 'auto-generated' },
        });
      } catch (err) {
        logger.warn({ err, userId: s.user_id }, 'alerts: a digest could not be sent; will retry');
        return 'failed';
      }
    }
    const sent = new Set(rows.map((r) => r.id));
    const byApp = new Map<string, { sent: string[]; dropped: string[] }>();
    for (const p of pending) {
      const entry = byApp.get(p.app_id) ?? { sent: [], dropped: [] };
      (sent.has(p.id) ? entry.sent : entry.dropped).push(p.id);
      byApp.set(p.app_id, entry);
    }
    for (const [appId, e] of byApp) {
      await inbox.settleDigest(db, appId, e.sent, 'sent', now);
      await inbox.settleDigest(db, appId, e.dropped, 'dropped', now);
    }
    return sent.size > 0 ? 'sent' : 'empty';
  }

  /** One pass of digests: each member's due digest, taken by moving it to their next local hour. */
  async function digestPass(): Promise<{ taken: number; mailed: number }> {
    const now = clock.now();
    let sent = 0;
    const due = await repo.dueDigests(db, now, MAIL_BATCH);
    for (const s of due) {
      const zone = zoneClock(s.time_zone) ?? clock;
      const next = nextLocalHour(zone, now, s.digest_hour);
      if (s.next_digest_at === null || !(await repo.moveDigest(db, s.user_id, s.next_digest_at, next))) continue;
      const outcome = await digestOf(s, now);
      if (outcome === 'sent') sent += 1;
      // Not sent (SMTP down): tried again soon, the lines still waiting.
      else if (outcome === 'failed') await repo.moveDigest(db, s.user_id, next, now + DIGEST_RETRY_MS);
    }
    return { taken: due.length, mailed: sent };
  }

  /** The digests due now; returns how many were mailed (a digest of no line is no mail). */
  async function sendDigests(): Promise<number> {
    return (await digestPass()).mailed;
  }

  let lastPrune = 0;
  async function prune(): Promise<number> {
    const now = clock.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return 0;
    lastPrune = now;
    return repo.prune(db, now - config.alertRetentionDays * 86_400_000, now);
  }

  const mailJob: JobDefinition = {
    name: 'alert-mail',
    idleMs: MAIL_EVERY_MS,
    tick: async (): Promise<TickOutcome> => ((await sendInstant()) === MAIL_BATCH ? 'worked' : 'idle'),
  };
  const digestJob: JobDefinition = {
    name: 'alert-digest',
    idleMs: DIGEST_EVERY_MS,
    tick: async (): Promise<TickOutcome> => {
      const { taken } = await digestPass();
      await prune();
      // A full batch: more members' digests may be due at this hour.
      return taken === MAIL_BATCH ? 'worked' : 'idle';
    },
  };

  return { sendInstant, sendDigests, prune, mailJob, digestJob };
}

export type AlertMail = ReturnType<typeof createAlertMail>;
