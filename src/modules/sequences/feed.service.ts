import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { SEQUENCES_FEED_CURSOR, advanceCursor, readWholeFeed, startCursor } from '../../events/feed-cursors.ts';
import { sequenceOutbox } from '../../events/sequencer.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { ExitReason } from './mapper.ts';

/** Events one pass reads. */
const BATCH = 500;
/** How often a server looks at the feed when idle: a customer who unsubscribed leaves within seconds. */
export const FEED_EVERY_MS = 2_000;

/** The behaviour records of a form filled in: on the site, in an app, in a shared deck. */
export const FORM_ACTIONS = ['submit_form', 'app_submit_form', 'link_view_clue'] as const;

/** A feed event as this reader sees it. */
export type SequenceFeedEvent = Awaited<ReturnType<typeof readWholeFeed>>[number];

/**
 * Something the sequences read from the feed, applied in the pass's transaction: the exits here,
 * and whatever else reacts to what customers do (the runner's deck jump). `actions`: the behaviour
 * records whose bodies it needs.
 */
export interface FeedHandler {
  actions: readonly string[];
  apply(trx: Kysely<Database>, events: SequenceFeedEvent[], now: number): Promise<number>;
}

/** Another server's pass committed these events first: this one's work is dropped and the next pass reads on. */
class CursorMoved extends Error {}

/** The exit an event means, with its customer: an unsubscribe or bounce (MailSuppression), a form filled in, the customer deleted. */
export function exitOf(e: SequenceFeedEvent): { appId: string; customerId: string; reason: ExitReason } | null {
  // A customer deleted (or erased: its enrolments are gone with it).
  if (e.domainType === 'Customer' && e.event_type === 'delete')
    return { appId: e.appId, customerId: e.domainId, reason: 'customer_deleted' };
  const body = e.body as { customerId?: unknown; action?: unknown; reason?: unknown } | null;
  if (body === null || typeof body.customerId !== 'string' || body.customerId === '') return null;
  if (e.domainType === 'MailSuppression' && e.event_type === 'create') {
    if (body.reason === 'unsubscribe') return { appId: e.appId, customerId: body.customerId, reason: 'unsubscribed' };
    if (body.reason === 'bounce') return { appId: e.appId, customerId: body.customerId, reason: 'bounced' };
    return null;
  }
  if (e.domainType === 'BehaviourLog' && (FORM_ACTIONS as readonly string[]).includes(String(body.action)))
    return { appId: e.appId, customerId: body.customerId, reason: 'form_submitted' };
  return null;
}

/** The exits of a pass's events: every enrolment of the customer, active or paused, leaves. */
export function createFeedExits(lifecycle: Lifecycle): FeedHandler {
  return {
    actions: FORM_ACTIONS,
    async apply(trx, events, now) {
      let exited = 0;
      for (const e of events) {
        const exit = exitOf(e);
        if (exit === null) continue;
        const rows = await lifecycle.exitCustomers(trx, { ...exit, customerIds: [exit.customerId], sequenceId: null }, now);
        exited += rows.length;
      }
      return exited;
    },
  };
}

/**
 * The sequences' reader of the feed (docs/sequences.md "Exits"): a pass reads every project's
 * events after the cursor `sequences`, in feed order, and applies its handlers and moves the cursor
 * in one transaction. Every server runs it; of two passes over the same events one commits, the other
 * is dropped, so each event is applied once across restarts and servers.
 */
export function createSequenceFeed(ctx: AppContext, handlers: FeedHandler[]) {
  const db = ctx.database.db;
  const { clock } = ctx;
  const actions = [...new Set(handlers.flatMap((h) => h.actions))];

  async function pass(): Promise<{ events: number; changed: number }> {
    await sequenceOutbox(db, ctx.database.features);
    const from = await startCursor(db, SEQUENCES_FEED_CURSOR);
    // Enrolment events are this module's own: never a source.
    const read = await readWholeFeed(db, clock, from, { limit: BATCH, behaviourActions: actions });
    const to = read.length > 0 ? (read[read.length - 1]?.seq ?? from) : from;
    if (to === from) return { events: 0, changed: 0 };
    const events = read.filter((e) => e.domainType !== 'Enrollment');
    const now = clock.now();
    try {
      const changed = await db.transaction().execute(async (trx) => {
        if (!(await advanceCursor(trx, SEQUENCES_FEED_CURSOR, from, to))) throw new CursorMoved();
        let n = 0;
        for (const h of handlers) n += await h.apply(trx, events, now);
        return n;
      });
      return { events: read.length, changed };
    } catch (err) {
      if (err instanceof CursorMoved) return { events: 0, changed: 0 };
      throw err;
    }
  }

  const job: JobDefinition = {
    name: 'sequence-feed',
    idleMs: FEED_EVERY_MS,
    // A full batch: more may be waiting, read on at once.
    tick: async () => ((await pass()).events === BATCH ? 'worked' : 'idle'),
  };

  return { pass, job };
}

export type SequenceFeed = ReturnType<typeof createSequenceFeed>;
