import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { lastPosition, readFeed, sequenceOutbox, storedEvents, toMessage } from '../../events/sequencer.ts';
import { checkWebhookUrl } from '../../events/ssrf.ts';
import { type SendResult, sendWebhook } from '../../events/webhook-sender.ts';
import { badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { AccessService } from '../access/service.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { type WebhookRow, originOf, toDelivery, toWebhook } from './mapper.ts';
import { webhooksRepository as repo } from './repository.ts';

export const DOMAIN_TYPES = [
  'Customer',
  'BehaviourLog',
  'Call',
  'Link',
  'LinkViewLog',
  'Clue',
  'Post',
  'LinkView',
  'Note',
  'Task',
  'Alert',
];
const MAX_HOOKS_PER_PROJECT = 20;
/** How long a test delivery waits for the receiver (the relay's own default). */
const TEST_TIMEOUT_MS = 10_000;
/** The event type of a test delivery: never stored, never in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test';

const webhookNotFound = () => failure('webhook_not_found');

// Notification channels: webhooks of purpose `alerts` (chat robots and alert webhooks), built by the composition root.
export {
  type ActiveChannel,
  type ChannelInput,
  type ChannelPost,
  type NotificationChannels,
  createNotificationChannels,
} from './channels.service.ts';

/** Webhook subscriptions and the pull feed (docs/interface.md §14); Master/Admin only. */

export function createWebhooksService(ctx: AppContext, access: AccessService, audit: AuditRecorder) {
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;

  async function hookOf(appId: string, id: string) {
    const w = await repo.find(db, appId, id, 'events');
    if (!w) throw webhookNotFound();
    return w;
  }

  return {
    async create(appId: string, callerId: number, input: { url?: string | undefined; domain_types?: string | undefined }) {
      await access.manager(appId, callerId);
      const url = input.url?.trim() ?? '';
      if (url === '') throw failure('url_required');
      if (url.length > 2000) throw failure('url_invalid', 'url must be at most 2000 characters');
      const problem = await checkWebhookUrl(url, ctx.config.webhookAllowPrivate);
      if (problem) throw failure('url_invalid', problem);
      let types: string[] | null = null;
      if (input.domain_types !== undefined && input.domain_types.trim() !== '') {
        types = [
          ...new Set(
            input.domain_types
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== ''),
          ),
        ];
        const bad = types.find((t) => !DOMAIN_TYPES.includes(t));
        if (bad !== undefined) throw failure('domain_types_invalid', `unknown domain type ${bad}; use ${DOMAIN_TYPES.join(', ')}`);
      }
      if ((await repo.count(db, appId, 'events')) >= MAX_HOOKS_PER_PROJECT)
        throw failure('too_many_webhooks', `at most ${MAX_HOOKS_PER_PROJECT} webhooks per project`);
      // A new webhook receives the events written from now on.
      await sequenceOutbox(db, ctx.database.features);
      const top = await lastPosition(db);
      const row: WebhookRow = {
        id: timeOrderedUuid(),
        app_id: appId,
        url,
        secret: `whsec_${randomToken(24)}`,
        domain_types: types ? types.join(',') : null,
        status: 'active',
        disabled_reason: null,
        cursor: top,
        created_by: callerId,
        created_at: clock.now(),
        purpose: 'events',
        kind: 'webhook',
        options: null,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit(trx, {
          appId,
          actorId: callerId,
          action: 'webhook.create',
          targetType: 'webhook',
          targetId: row.id,
          detail: { url: originOf(url) },
        });
      });
      return toWebhook(row, clock);
    },

    async list(appId: string, callerId: number) {
      await access.manager(appId, callerId);
      const rows = await repo.list(db, appId, 'events');
      return rows.map((w) => toWebhook(w, clock));
    },

    async remove(appId: string, callerId: number, id: string): Promise<true> {
      await access.manager(appId, callerId);
      const hook = await hookOf(appId, id);
      await db.transaction().execute(async (trx) => {
        await repo.remove(trx, appId, id);
        await audit(trx, {
          appId,
          actorId: callerId,
          action: 'webhook.remove',
          targetType: 'webhook',
          targetId: id,
          detail: { url: originOf(hook.url) },
        });
      });
      return true;
    },

    async deliveries(appId: string, callerId: number, id: string, p: Page) {
      await access.manager(appId, callerId);
      await hookOf(appId, id);
      const rows = await repo.deliveries(db, appId, id, p.offset, p.limit);
      return rows.map((d) => toDelivery(d, clock));
    },

    /**
     * Sends again: the given events (a new delivery), or else every dead-lettered delivery. A
     * disabled webhook is re-enabled, since replaying means the receiver is back.
     */
    async replay(appId: string, callerId: number, id: string, eventIds: string | undefined): Promise<{ deliveries: number }> {
      await access.manager(appId, callerId);
      const hook = await hookOf(appId, id);
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        if (hook.status !== 'active') await repo.reactivate(trx, appId, id);
        await audit(trx, {
          appId,
          actorId: callerId,
          action: 'webhook.replay',
          targetType: 'webhook',
          targetId: id,
          detail: { eventIds: eventIds?.trim() ? eventIds.trim().slice(0, 2000) : 'dead-lettered' },
        });
        if (eventIds !== undefined && eventIds.trim() !== '') {
          const ids = [
            ...new Set(
              eventIds
                .split(',')
                .map((s) => s.trim())
                .filter((s) => s !== ''),
            ),
          ];
          if (ids.length > 1000) throw badRequest("Invalid parameter 'event_ids': at most 1000 ids");
          const rows = await storedEvents(trx, appId, ids);
          const missing = ids.find((e) => !rows.some((r) => r.id === e));
          if (missing !== undefined) throw failure('event_not_found', `event ${missing} is not (or no longer) stored for this project`);
          const sorted = [...rows].sort((a, b) => Number(a.seq ?? 0) - Number(b.seq ?? 0));
          await repo.insertDelivery(trx, {
            app_id: appId,
            webhook_id: id,
            event_ids: JSON.stringify(sorted.map((r) => r.id)),
            first_seq: sorted[0]?.seq ?? null,
            last_seq: sorted[sorted.length - 1]?.seq ?? null,
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            last_status_code: null,
            last_error: null,
            created_at: now,
            delivered_at: null,
            dedupe_key: null,
          });
          return { deliveries: 1 };
        }
        return { deliveries: await repo.requeueDead(trx, appId, id, now) };
      });
    },

    /**
     * Delivers one test event to the webhook at once, signed as every delivery is, and answers what
     * the receiver said. The event is made for the test only: not stored, not in the feed, no delivery
     * row; a disabled webhook is tested all the same (whether its receiver is back is the question).
     */
    async test(appId: string, callerId: number, id: string): Promise<SendResult & { eventId: string }> {
      await access.manager(appId, callerId);
      const hook = await hookOf(appId, id);
      const eventId = timeOrderedUuid();
      const message = {
        id: eventId,
        event_type: TEST_EVENT_TYPE,
        domainType: 'Webhook',
        domainId: hook.id,
        body: { appId, test: true },
        createdAt: clock.format(clock.now()),
      };
      const result = await sendWebhook(hook.url, hook.secret, JSON.stringify([message]), [eventId], {
        timeoutMs: TEST_TIMEOUT_MS,
        allowPrivate: ctx.config.webhookAllowPrivate,
      });
      return { ...result, eventId };
    },

    /** The pull feed: events in commit order after a cursor, and the cursor to continue from. */
    async feed(appId: string, callerId: number, after: string | undefined, p: Page) {
      await access.manager(appId, callerId);
      const cursor = after === undefined || after === '' ? 0 : /^\d{1,15}$/.test(after) ? Number(after) : null;
      if (cursor === null) throw badRequest("Invalid parameter 'after': a cursor returned by this feed");
      await sequenceOutbox(db, ctx.database.features);
      const events = await readFeed(db, clock, appId, cursor, p.limit);
      const next = events.length ? String(events[events.length - 1]?.seq) : String(cursor);
      return {
        events: events.map((e) => ({ ...toMessage(e), createdAt: clock.format(e.createdAt) })),
        next,
        hasMore: events.length === p.limit,
      };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
