import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database, NotificationsTable } from '../../db/index.ts';
import type { AlertEventBody } from '../../events/alert-events.ts';
import { ALERTS_FEED_CURSOR, advanceCursor, readWholeFeed, startCursor } from '../../events/feed-cursors.ts';
import { writeEvents } from '../../events/outbox.ts';
import { sequenceOutbox } from '../../events/sequencer.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { ChannelPost } from '../webhooks/service.ts';
import { type AlertsDeps, customerUrl } from './common.ts';
import { type ReadingPlan, foldHotLeads, planReadings, readDrafts, settleReadings } from './readings.ts';
import { type Planned, resolveDrafts } from './recipients.ts';
import { shareDrafts } from './shares.ts';
import { signalsRepository as repo } from './signals.repository.ts';
import { READING_ACTIONS, type SignalDraft, stepsOf } from './sources.ts';
import { allWords, wordsOf } from './words.ts';

/** Events one pass reads. */
const BATCH = 500;
/** How often a server looks at the feed when idle: a signal is told within seconds. */
export const EVALUATE_EVERY_MS = 2_000;
/** A customer's open of the same deck within this time is the same news: told once. */
export const REOPEN_QUIET_MS = 30 * 60 * 1000;
/** Signals of one kind about one customer told in an hour at most; more are recorded, not told (a flood of views). */
export const SIGNALS_PER_CUSTOMER_HOUR = 10;
/** The evaluators' lock: one pass commits at a time (PostgreSQL advisory lock; SQLite's write lock). */
const EVALUATOR_LOCK = 727_036;

/** Another server's pass committed these events first: this one's work is dropped and the next pass reads on. */
class CursorMoved extends Error {}

/** What a pass did. */
export interface PassResult {
  events: number;
  signals: number;
  mails: number;
}

/**
 * The evaluator (docs/alerts.md "How a signal travels"): a pass reads the feed after the alerts'
 * cursor (every project's events, in feed order), turns them into signals (sources.ts; readings of
 * directed decks, readings.ts), finds who is told and which channels post them (recipients.ts), and
 * commits in one transaction: the cursor moved on, the signals once per key, their Alert events,
 * the members' notifications and the channels' deliveries. Every server runs it; one pass commits at
 * a time, a pass whose events another committed first is dropped, and a signal's key is unique, so a
 * signal is told once across restarts and servers. `mailQueued` is told when a pass queued e-mail.
 */
export function createEvaluator(ctx: AppContext, deps: AlertsDeps, hooks: { mailQueued: () => void }) {
  const db = ctx.database.db;
  const { clock, config } = ctx;

  function alertBody(p: Planned, signalId: string): AlertEventBody {
    const d = p.draft;
    return {
      id: signalId,
      appId: d.appId,
      signal: d.signal,
      customerId: d.customerId,
      customerName: p.customer.name,
      svcUserId: String(p.customer.ownerId),
      at: clock.format(d.at),
      url: customerUrl(config.publicBaseUrl, d.appId, d.customerId),
      data: d.data,
      words: allWords(p.facts),
    };
  }

  function notificationRows(p: Planned, signalId: string, now: number): Insertable<NotificationsTable>[] {
    return p.recipients.map((r) => {
      const words = wordsOf(p.facts, r.locale);
      return {
        id: timeOrderedUuid(),
        app_id: p.draft.appId,
        user_id: r.userId,
        signal_id: signalId,
        signal: p.draft.signal,
        customer_id: p.draft.customerId,
        title: words.title,
        body: words.text,
        data: JSON.stringify(p.draft.data),
        inbox: r.inbox ? 1 : 0,
        read_at: null,
        mail_status: r.mail,
        mail_attempts: 0,
        mail_next_at: r.mail === 'queued' ? now : null,
        mail_error: null,
        mailed_at: null,
        created_at: now,
      };
    });
  }

  /** Whether a new signal is recorded without being told: a reopen of the same deck, or the customer's hour spent. */
  async function suppressed(trx: Kysely<Database>, d: SignalDraft, now: number): Promise<boolean> {
    if (d.signal === 'deck_opened' && d.subject !== null) {
      const q = { customerId: d.customerId, signal: d.signal, subject: d.subject, since: now - REOPEN_QUIET_MS };
      if (await repo.signalledSince(trx, d.appId, q)) return true;
    }
    const told = await repo.countSince(trx, d.appId, { customerId: d.customerId, signal: d.signal, since: now - 60 * 60 * 1000 });
    return told >= SIGNALS_PER_CUSTOMER_HOUR;
  }

  /** One project's signals, in the pass's transaction: each new key recorded, and told unless suppressed. */
  async function writeProject(
    trx: Kysely<Database>,
    appId: string,
    planned: Planned[],
    now: number,
  ): Promise<{ signals: number; mails: number }> {
    const existing = await repo.existingKeys(
      trx,
      appId,
      planned.map((p) => p.draft.key),
    );
    const rows: Insertable<NotificationsTable>[] = [];
    const posts: ChannelPost[] = [];
    // Signals recorded without being told: what a signal told in place of one waits for.
    const untold = new Set<string>();
    let signals = 0;
    for (const p of planned) {
      if (existing.has(p.draft.key)) continue;
      if (p.draft.insteadOf !== undefined && !untold.has(p.draft.insteadOf)) continue;
      existing.add(p.draft.key);
      // A hot lead folded into a reading is told with the reading's end (readings.ts, foldHotLeads).
      const quiet = p.draft.foldedInto !== undefined || (p.draft.insteadOf === undefined && (await suppressed(trx, p.draft, now)));
      if (quiet) untold.add(p.draft.key);
      const signalId = timeOrderedUuid();
      const d = p.draft;
      await repo.insertSignal(trx, {
        id: signalId,
        app_id: appId,
        key: d.key,
        signal: d.signal,
        customer_id: d.customerId,
        subject: d.foldedInto ?? d.subject,
        suppressed: quiet ? 1 : 0,
        created_at: now,
      });
      if (quiet) continue;
      signals += 1;
      const [eventId] = await writeEvents(
        trx,
        appId,
        [{ event_type: 'create', domainType: 'Alert', domainId: signalId, body: alertBody(p, signalId) }],
        now,
      );
      rows.push(...notificationRows(p, signalId, now));
      for (const channelId of p.channels) posts.push({ channelId, signalId, eventId: eventId as string });
    }
    await repo.insertNotifications(trx, rows);
    await deps.channels.enqueue(trx, appId, posts, now);
    return { signals, mails: rows.filter((r) => r.mail_status === 'queued').length };
  }

  /** The pass's one transaction: the cursor, the readings, the signals. */
  async function commit(span: { from: number; to: number }, readings: ReadingPlan, planned: Planned[], now: number) {
    return db.transaction().execute(async (trx) => {
      await ctx.database.features.transactionLock(trx, EVALUATOR_LOCK);
      if (span.to !== span.from && !(await advanceCursor(trx, ALERTS_FEED_CURSOR, span.from, span.to))) throw new CursorMoved();
      // Readings another pass changed since this one read them: their signals dropped, hot leads unfolded.
      const lost = await settleReadings(
        trx,
        readings,
        planned.map((p) => p.draft),
      );
      await repo.saveReadings(trx, readings.readings);
      // A quiet reading is ended by one pass only: the others drop its signal.
      for (const e of readings.ended) {
        if (e.quiet && !(await repo.endReading(trx, e.reading.app_id, e.reading.view_id, now))) lost.add(`deck_read:${e.reading.view_id}`);
      }
      const byApp = new Map<string, Planned[]>();
      for (const p of planned) if (!lost.has(p.draft.key)) byApp.set(p.draft.appId, [...(byApp.get(p.draft.appId) ?? []), p]);
      const total = { signals: 0, mails: 0 };
      for (const [appId, list] of byApp) {
        const r = await writeProject(trx, appId, list, now);
        total.signals += r.signals;
        total.mails += r.mails;
      }
      return total;
    });
  }

  /** One pass over the feed after the cursor, and over the readings gone quiet. */
  async function pass(): Promise<PassResult> {
    await sequenceOutbox(db, ctx.database.features);
    const from = await startCursor(db, ALERTS_FEED_CURSOR);
    const events = await readWholeFeed(db, clock, from, { limit: BATCH, behaviourActions: READING_ACTIONS });
    const to = events.length > 0 ? (events[events.length - 1]?.seq ?? from) : from;
    const now = clock.now();
    // Alert events are this module's own: never a source.
    const steps = events.filter((e) => e.domainType !== 'Alert').flatMap((e) => stepsOf(e, clock));
    const readings = await planReadings(deps, db, steps, { now, quietMs: config.alertReadingQuietSeconds * 1000 });
    const signals = steps.flatMap((s) => (s.kind === 'signal' ? [s.draft] : []));
    await foldHotLeads(db, signals, readings);
    const shares = await shareDrafts(deps, steps, now);
    const drafts = [...signals, ...readings.drafts, ...shares, ...(await readDrafts(deps, readings.ended))];
    const planned = await resolveDrafts(deps, db, drafts, config.timeZone);
    try {
      const written = await commit({ from, to }, readings, planned, now);
      if (written.mails > 0) hooks.mailQueued();
      return { events: events.length, ...written };
    } catch (err) {
      if (err instanceof CursorMoved) return { events: 0, signals: 0, mails: 0 };
      throw err;
    }
  }

  const job: JobDefinition = {
    name: 'alert-evaluate',
    idleMs: EVALUATE_EVERY_MS,
    // A full batch: more may be waiting, read on at once.
    tick: async () => ((await pass()).events === BATCH ? 'worked' : 'idle'),
  };

  return { pass, job };
}

export type Evaluator = ReturnType<typeof createEvaluator>;
