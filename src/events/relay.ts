import { type WebhookDeliveriesTable, type Database, crossProject } from '../db/index.ts';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { AppContext } from '../context.ts';
import type { JobDefinition } from '../lib/jobs.ts';
import { NatsSink } from './nats-sink.ts';
import { readFeedPositions, sequenceOutbox, toFeedEvents, toMessage } from './sequencer.ts';
import { sendToReceiver } from './chat-sender.ts';
import { ALERTS_FEED_CURSOR, PLAYBOOKS_FEED_CURSOR, SEQUENCES_FEED_CURSOR, SEQUENCE_JUMPS_FEED_CURSOR } from './feed-cursors.ts';

export interface RelayOptions {
  /** Pause between passes when idle. */
  pollMs: number;
  /** Events per webhook delivery. */
  batchSize: number;
  /** First retry after about this long (then doubling, with ±20 % jitter). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A delivery failing for this long is dead-lettered. */
  deadAfterMs: number;
  timeoutMs: number;
  /** Lease on a delivery being sent, so a crashed relay's work is retried. */
  leaseMs: number;
  /**
   * Named cursors of other readers of the feed (event_cursors), whose events are kept until they
   * have read them: the alerts' evaluator and the sequences' two readers (exits, deck jumps), which every server runs.
   */
  feedReaders: readonly string[];
}

export const DEFAULT_RELAY_OPTIONS: RelayOptions = {
  pollMs: 100,
  batchSize: 100,
  retryBaseMs: 10_000,
  retryMaxMs: 60 * 60 * 1000,
  deadAfterMs: 25 * 60 * 60 * 1000,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  feedReaders: [ALERTS_FEED_CURSOR, PLAYBOOKS_FEED_CURSOR, SEQUENCES_FEED_CURSOR, SEQUENCE_JUMPS_FEED_CURSOR],
};

/**
 * The wait before a failed delivery's next attempt: `base` doubling per attempt up to `max`, with
 * ±20 % jitter so receivers that come back are not hit by every retry at once. The relay's webhook
 * deliveries and the alerts' e-mails retry on it.
 */
export function retryDelay(attempts: number, base: number, max: number): number {
  const wait = Math.min(max, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(wait * (0.8 + Math.random() * 0.4));
}

const NATS_CURSOR = 'nats';
const PRUNE_EVERY_MS = 60_000;

/** The relay's background job, in the server (RAPPORT_EMBEDDED_RELAY) or in `rapport relay`. */
export const RELAY_JOB = 'event-relay';
/** The longest wait after passes that failed in a row (the database or NATS unreachable). */
const RELAY_MAX_BACKOFF_MS = 30_000;

/** What the relay's job runs: a pass, and letting go of its connections once the loop has ended. */
export interface RelayPasses {
  readonly options: Pick<RelayOptions, 'pollMs'>;
  /** One pass over every sink: true when there may be more work right away. */
  tick(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The relay as a background job (src/lib/jobs.ts): a pass after another while there is work, a pass
 * every `pollMs` when idle (or at once when poked), a pass that throws (the database or NATS
 * unreachable) retried after a wait doubling from `pollMs` up to 30 s. Stopping waits for the pass
 * under way, then closes the NATS connection.
 */
export function relayJob(relay: RelayPasses): JobDefinition {
  return {
    name: RELAY_JOB,
    idleMs: relay.options.pollMs,
    maxBackoffMs: RELAY_MAX_BACKOFF_MS,
    tick: async () => ((await relay.tick()) ? 'worked' : 'idle'),
    stopped: () => relay.close(),
  };
}

/**
 * Moves committed outbox events to the sinks: sequences them (feed order), plans and sends
 * webhook deliveries with retries, publishes to NATS, and prunes what every sink has delivered
 * once the retention period has passed. Delivery is at-least-once; consumers dedupe by event id.
 */
export class Relay {
  private lastPrune = 0;
  private readonly nats: NatsSink | null;
  readonly options: RelayOptions;

  constructor(
    private readonly ctx: AppContext,
    options: Partial<RelayOptions> = {},
  ) {
    this.options = { ...DEFAULT_RELAY_OPTIONS, ...options };
    const c = ctx.config;
    this.nats = c.natsUrl ? new NatsSink(c.natsUrl, c.natsStream, c.natsSubjectPrefix, ctx.logger) : null;
  }

  private get db(): Kysely<Database> {
    return this.ctx.database.db;
  }

  /** Lets go of the NATS connection (the job's loop has ended; what was not delivered waits for the next relay). */
  async close(): Promise<void> {
    await this.nats?.stop().catch(() => undefined);
  }

  /** One pass over every sink. Returns true when there may be more work right away. */
  async tick(): Promise<boolean> {
    const sequenced = await sequenceOutbox(this.db, this.ctx.database.features);
    const planned = await this.planDeliveries();
    const sent = await this.sendDue();
    const published = await this.publishNats();
    if (this.ctx.clock.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = this.ctx.clock.now();
      await this.prune();
    }
    return sequenced >= 1000 || planned || sent || published;
  }

  /**
   * Copies new events of each active event webhook into delivery batches and advances its cursor.
   * Notification channels (purpose `alerts`) get no feed: the alerts module plans their deliveries.
   */
  private async planDeliveries(): Promise<boolean> {
    const hooks = await this.db
      .selectFrom('webhooks')
      .select(['id', 'app_id'])
      .where('status', '=', 'active')
      .where('purpose', '=', 'events')
      .modifyEnd(crossProject('event-relay'))
      .execute();
    let more = false;
    for (const { id, app_id: appId } of hooks) {
      const full = await this.db.transaction().execute(async (trx) => {
        let q = trx.selectFrom('webhooks').selectAll().where('app_id', '=', appId).where('id', '=', id).where('status', '=', 'active');
        if (this.ctx.database.features.skipLocked) q = q.forUpdate().skipLocked();
        const hook = await q.executeTakeFirst();
        if (!hook) return false;
        const events = await readFeedPositions(trx, hook.app_id, hook.cursor, this.options.batchSize);
        if (events.length === 0) return false;
        const types = hook.domain_types ? new Set(hook.domain_types.split(',')) : null;
        const wanted = types ? events.filter((e) => types.has(e.domainType)) : events;
        const last = events[events.length - 1]?.seq ?? hook.cursor;
        if (wanted.length > 0) {
          await trx
            .insertInto('webhook_deliveries')
            .values({
              app_id: hook.app_id,
              webhook_id: hook.id,
              event_ids: JSON.stringify(wanted.map((e) => e.id)),
              first_seq: wanted[0]?.seq ?? null,
              last_seq: wanted[wanted.length - 1]?.seq ?? null,
              status: 'pending',
              attempts: 0,
              next_attempt_at: this.ctx.clock.now(),
              last_status_code: null,
              last_error: null,
              created_at: this.ctx.clock.now(),
              delivered_at: null,
              dedupe_key: null,
            })
            .execute();
        }
        await trx.updateTable('webhooks').set({ cursor: last }).where('app_id', '=', hook.app_id).where('id', '=', hook.id).execute();
        return events.length === this.options.batchSize;
      });
      more ||= full;
    }
    return more;
  }

  private backoff(attempts: number): number {
    return retryDelay(attempts, this.options.retryBaseMs, this.options.retryMaxMs);
  }

  /** Sends the oldest open delivery of each webhook (in order per webhook), when it is due. */
  private async sendDue(): Promise<boolean> {
    const now = this.ctx.clock.now();
    const claimed = await this.db.transaction().execute(async (trx) => {
      const heads = await trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', (j) => j.onRef('w.app_id', '=', 'd.app_id').onRef('w.id', '=', 'd.webhook_id'))
        .select(['d.webhook_id', (eb) => eb.fn.min('d.id').as('head')])
        .where('d.status', '=', 'pending')
        .where('w.status', '=', 'active')
        .groupBy('d.webhook_id')
        .modifyEnd(crossProject('event-relay'))
        .execute();
      const ids = heads.map((h) => Number(h.head));
      if (ids.length === 0) return [];
      let q = trx
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', 'in', ids)
        .where('next_attempt_at', '<=', now)
        .modifyEnd(crossProject('event-relay'));
      if (this.ctx.database.features.skipLocked) q = q.forUpdate().skipLocked();
      const due = await q.execute();
      for (const d of due) {
        // The lease: another relay (or this one after a crash) retries only once it has run out.
        await trx
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: now + this.options.leaseMs })
          .where('app_id', '=', d.app_id)
          .where('id', '=', d.id)
          .execute();
      }
      return due;
    });
    await Promise.all(claimed.map((d) => this.deliver(d)));
    return claimed.length > 0;
  }

  /** The event messages a delivery names, in its order (those no longer stored left out). */
  private async messagesOf(d: Selectable<WebhookDeliveriesTable>, ids: string[]) {
    const rows = ids.length
      ? await this.db.selectFrom('outbox').selectAll().where('app_id', '=', d.app_id).where('id', 'in', ids).execute()
      : [];
    const byId = new Map((await toFeedEvents(this.db, this.ctx.clock, rows)).map((e) => [e.id, e]));
    return ids
      .map((id) => byId.get(id))
      .filter((e) => e !== undefined)
      .map((e) => toMessage(e));
  }

  private async deliver(d: Selectable<WebhookDeliveriesTable>): Promise<void> {
    const hook = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('app_id', '=', d.app_id)
      .where('id', '=', d.webhook_id)
      .executeTakeFirst();
    if (!hook) return;
    const ids = JSON.parse(d.event_ids) as string[];
    const started = performance.now();
    const sent = await sendToReceiver(
      hook,
      { messages: await this.messagesOf(d, ids), eventIds: ids },
      { timeoutMs: this.options.timeoutMs, allowPrivate: this.ctx.config.webhookAllowPrivate, now: this.ctx.clock.now() },
    );
    const seconds = (performance.now() - started) / 1000;
    if (sent === null) {
      // A channel's alert no longer stored (events are kept EVENT_RETENTION_DAYS): nothing to post, ever.
      await this.settle(d, {
        status: 'dead',
        attempts: d.attempts + 1,
        last_status_code: null,
        last_error: 'the alert is no longer stored',
      });
      this.ctx.observer.webhookDelivery('dead', seconds);
    } else if (sent.ok) {
      this.ctx.observer.webhookDelivery('delivered', seconds);
      const now = this.ctx.clock.now();
      await this.settle(d, {
        status: 'delivered',
        attempts: d.attempts + 1,
        delivered_at: now,
        last_status_code: sent.status,
        last_error: null,
      });
    } else if (sent.status === 410) {
      await this.disable(hook, d);
      this.ctx.observer.webhookDelivery('disabled', seconds);
    } else {
      const now = this.ctx.clock.now();
      const attempts = d.attempts + 1;
      const dead = now - d.created_at >= this.options.deadAfterMs;
      this.ctx.observer.webhookDelivery(dead ? 'dead' : 'failed', seconds);
      await this.settle(d, {
        status: dead ? 'dead' : 'pending',
        attempts,
        next_attempt_at: now + this.backoff(attempts),
        last_status_code: sent.status,
        last_error: sent.error,
      });
    }
  }

  private async settle(d: Selectable<WebhookDeliveriesTable>, patch: Updateable<WebhookDeliveriesTable>): Promise<void> {
    await this.db.updateTable('webhook_deliveries').set(patch).where('app_id', '=', d.app_id).where('id', '=', d.id).execute();
  }

  /** HTTP 410 Gone: the receiver is gone for good; its webhook (or channel) is disabled, the delivery dead-lettered. */
  private async disable(hook: { app_id: string; id: string }, d: Selectable<WebhookDeliveriesTable>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhooks')
        .set({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' })
        .where('app_id', '=', hook.app_id)
        .where('id', '=', hook.id)
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'dead', attempts: d.attempts + 1, last_status_code: 410, last_error: 'HTTP 410: webhook disabled' })
        .where('app_id', '=', d.app_id)
        .where('id', '=', d.id)
        .execute();
    });
    this.ctx.logger.warn({ webhook: hook.id }, 'webhook disabled: receiver answered 410');
  }

  private async publishNats(): Promise<boolean> {
    if (!this.nats) return false;
    const cursor = await this.db.selectFrom('event_cursors').select('position').where('name', '=', NATS_CURSOR).executeTakeFirst();
    const after = Number(cursor?.position ?? 0);
    const rows = await this.db
      .selectFrom('outbox')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(500)
      .modifyEnd(crossProject('event-relay'))
      .execute();
    if (rows.length === 0) return false;
    await this.nats.publish(await toFeedEvents(this.db, this.ctx.clock, rows));
    const last = Number(rows[rows.length - 1]?.seq ?? after);
    await this.db
      .insertInto('event_cursors')
      .values({ name: NATS_CURSOR, position: last })
      .onConflict((oc) => oc.column('name').doUpdateSet({ position: last }))
      .execute();
    return rows.length === 500;
  }

  /**
   * Deletes, in small batches, events older than the retention period that every sink has
   * delivered. Events not yet sequenced, or still owed to a webhook (pending or dead-lettered, so
   * they can be replayed) or to NATS, are kept.
   */
  async prune(): Promise<number> {
    const db = this.db;
    const cutoff = this.ctx.clock.now() - this.ctx.config.eventRetentionDays * 24 * 3600 * 1000;
    const limits: number[] = [];
    if (this.nats) {
      const c = await db.selectFrom('event_cursors').select('position').where('name', '=', NATS_CURSOR).executeTakeFirst();
      limits.push(Number(c?.position ?? 0));
    }
    const hooks = await db
      .selectFrom('webhooks')
      .select(['id', 'cursor'])
      .where('status', '=', 'active')
      .where('purpose', '=', 'events')
      .modifyEnd(crossProject('event-relay'))
      .execute();
    for (const h of hooks) limits.push(Number(h.cursor));
    if (this.options.feedReaders.length > 0) {
      const readers = await db.selectFrom('event_cursors').select('position').where('name', 'in', this.options.feedReaders).execute();
      for (const r of readers) limits.push(Number(r.position));
    }
    const open = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('first_seq').as('m'))
      .where('status', 'in', ['pending', 'dead'])
      .modifyEnd(crossProject('event-relay'))
      .executeTakeFirst();
    if (open?.m !== null && open?.m !== undefined) limits.push(Number(open.m) - 1);
    const safe = limits.length ? Math.min(...limits) : Number.MAX_SAFE_INTEGER;
    let removed = 0;
    for (let i = 0; i < 20; i++) {
      const batch = await db
        .selectFrom('outbox')
        .select('id')
        .where('seq', 'is not', null)
        .where('seq', '<=', safe)
        .where('created_at', '<', cutoff)
        .orderBy('seq')
        .limit(500)
        .modifyEnd(crossProject('event-relay'))
        .execute();
      if (batch.length === 0) break;
      await db
        .deleteFrom('outbox')
        .where(
          'id',
          'in',
          batch.map((b) => b.id),
        )
        .modifyEnd(crossProject('event-relay'))
        .execute();
      removed += batch.length;
    }
    await db
      .deleteFrom('webhook_deliveries')
      .where('status', '=', 'delivered')
      .where('delivered_at', '<', cutoff)
      .modifyEnd(crossProject('event-relay'))
      .execute();
    return removed;
  }
}
