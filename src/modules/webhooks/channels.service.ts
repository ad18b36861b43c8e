import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { ALERT_SIGNALS, type AlertLocale, type AlertSignal, isAlertLocale, isAlertSignal } from '../../events/alert-events.ts';
import { type ChatAlert, CHAT_KINDS } from '../../events/chat-formats.ts';
import { isChatKind, receiverLocale, sendChat } from '../../events/chat-sender.ts';
import { checkWebhookUrl } from '../../events/ssrf.ts';
import { type SendResult, sendWebhook } from '../../events/webhook-sender.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { type ChannelOptions, type WebhookRow, originOf, toChannel } from './mapper.ts';
import { webhooksRepository as repo } from './repository.ts';

/** What a channel posts to: a chat platform's robot, or a URL that gets the alert's event signed as webhooks are. */
export const CHANNEL_KINDS = [...CHAT_KINDS, 'webhook'] as const;
const MAX_CHANNELS_PER_PROJECT = 20;
const TEST_TIMEOUT_MS = 10_000;
/** What a channel posts unless it says: the customers' signals (a task due and a mention are one member's). */
export const DEFAULT_CHANNEL_SIGNALS: AlertSignal[] = ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead'];
/** The share of a deck's pages a reading must reach for a channel to post it, unless the channel says. */
export const DEFAULT_CHANNEL_THRESHOLD = 50;

/** A channel's fields as a request gives them (a change: those given change). */
export interface ChannelInput {
  kind?: string | undefined;
  url?: string | undefined;
  secret?: string | undefined;
  events?: string | undefined;
  name?: string | undefined;
  read_threshold?: number | undefined;
  locale?: string | undefined;
  active?: number | undefined;
}

/** An active channel as the alerts' evaluator sees it: which signals it posts. */
export interface ActiveChannel {
  id: string;
  signals: AlertSignal[];
  readThreshold: number;
}

/** A signal's post to a channel, planned in the alerts' transaction: the signal's Alert event, once per channel. */
export interface ChannelPost {
  channelId: string;
  signalId: string;
  eventId: string;
}

const channelNotFound = () => failure('channel_not_found');

/** The signals of a comma list (`events`), each known, at least one. */
function signalsOf(raw: string): AlertSignal[] {
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== ''),
    ),
  ];
  const bad = names.find((s) => !isAlertSignal(s));
  if (bad !== undefined) throw failure('signals_invalid', `unknown signal ${bad.slice(0, 40)}; use ${ALERT_SIGNALS.join(', ')}`);
  if (names.length === 0) throw failure('signals_invalid', `events must name at least one of ${ALERT_SIGNALS.join(', ')}`);
  return names as AlertSignal[];
}

/** A channel's secret: none for Slack and WeCom (their URL is the credential), optional for the others. */
function secretOf(kind: string, raw: string | undefined): string | null {
  const secret = raw?.trim() ?? '';
  if (secret === '') return null;
  if (kind === 'slack' || kind === 'wecom')
    throw failure('channel_secret_invalid', `a ${kind} channel takes no secret: its URL is the credential`);
  if (secret.length > 200 || !/^[\x21-\x7e]+$/.test(secret))
    throw failure('channel_secret_invalid', 'secret must be 1–200 printable ASCII characters');
  return secret;
}

/** The options a request sets, over the stored ones. */
function optionsOf(kind: string, input: ChannelInput, stored: ChannelOptions | null): ChannelOptions {
  const t = input.read_threshold;
  if (t !== undefined && (!Number.isInteger(t) || t < 0 || t > 100)) throw failure('read_threshold_invalid');
  const name = input.name?.trim();
  if (name !== undefined && name.length > 100) throw failure('channel_name_invalid');
  const locale = input.locale?.trim();
  if (locale !== undefined && locale !== '' && !isAlertLocale(locale)) throw failure('locale_invalid');
  return {
    signals: input.events !== undefined ? signalsOf(input.events) : (stored?.signals ?? [...DEFAULT_CHANNEL_SIGNALS]),
    readThreshold: t ?? stored?.readThreshold ?? DEFAULT_CHANNEL_THRESHOLD,
    locale:
      locale !== undefined && locale !== ''
        ? (locale as AlertLocale)
        : (stored?.locale ?? (kind === 'slack' || kind === 'webhook' ? 'en-US' : 'zh-CN')),
    name: name !== undefined ? name || null : (stored?.name ?? null),
  };
}

function parseOptions(row: Pick<WebhookRow, 'options'>): ChannelOptions | null {
  if (row.options === null) return null;
  try {
    return JSON.parse(row.options) as ChannelOptions;
  } catch {
    return null;
  }
}

/**
 * Notification channels (docs/alerts.md "Chat channels"): a project's chat robots and alert webhooks,
 * Master/Admin only, stored as `webhooks` rows of purpose `alerts` so that their deliveries go
 * through the relay's retries, leases and dead letters like every webhook's. URLs are checked as
 * webhooks' are (public addresses only, at registration and at every delivery); secrets and URLs,
 * which are credentials, are answered masked.
 */
export function createNotificationChannels(ctx: AppContext, deps: { audit: AuditRecorder }) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, config } = ctx;

  async function channelOf(appId: string, id: string): Promise<WebhookRow> {
    const row = await repo.find(db, appId, id, 'alerts');
    if (!row) throw channelNotFound();
    return row;
  }

  async function checkedUrl(raw: string | undefined): Promise<string> {
    const url = raw?.trim() ?? '';
    if (url === '') throw failure('url_required');
    if (url.length > 2000) throw failure('url_invalid', 'url must be at most 2000 characters');
    const problem = await checkWebhookUrl(url, config.webhookAllowPrivate);
    if (problem) throw failure('url_invalid', problem);
    return url;
  }

  /** The test message: the channel's own format, language and signature, words that say it works. */
  async function sendTest(row: WebhookRow): Promise<SendResult> {
    const now = clock.now();
    const alert: ChatAlert = {
      words: {
        'en-US': { title: 'Rapport: test message', text: 'This channel receives the alerts of the project it was set up in.' },
        'zh-CN': { title: 'Rapport：测试消息', text: '此渠道将接收所在项目的提醒。' },
      },
      url: `${config.publicBaseUrl}/console/p/${row.app_id}/customers`,
    };
    const opts = { timeoutMs: TEST_TIMEOUT_MS, allowPrivate: config.webhookAllowPrivate, now };
    if (isChatKind(row.kind))
      return sendChat(row.kind, { url: row.url, secret: row.secret || null }, alert, receiverLocale(row.options), opts);
    const id = timeOrderedUuid();
    const message = {
      id,
      event_type: 'alert.test',
      domainType: 'Alert',
      domainId: row.id,
      body: { appId: row.app_id, test: true, ...alert },
    };
    return sendWebhook(row.url, row.secret, JSON.stringify([message]), [id], opts);
  }

  return {
    async create(actor: Actor, input: ChannelInput) {
      const appId = actor.app.id;
      const kind = input.kind?.trim().toLowerCase() ?? '';
      if (!(CHANNEL_KINDS as readonly string[]).includes(kind))
        throw failure('channel_kind_invalid', `kind must be one of ${CHANNEL_KINDS.join(', ')}`);
      const url = await checkedUrl(input.url);
      let secret = secretOf(kind, input.secret);
      // A channel of kind webhook is signed as webhooks are: a secret of its own unless one is given, shown once.
      const generated = kind === 'webhook' && secret === null;
      if (generated) secret = `whsec_${randomToken(24)}`;
      const options = optionsOf(kind, input, null);
      if ((await repo.count(db, appId, 'alerts')) >= MAX_CHANNELS_PER_PROJECT)
        throw failure('too_many_channels', `at most ${MAX_CHANNELS_PER_PROJECT} notification channels per project`);
      const row: WebhookRow = {
        id: timeOrderedUuid(),
        app_id: appId,
        url,
        secret: secret ?? '',
        domain_types: null,
        status: 'active',
        disabled_reason: null,
        cursor: 0,
        created_by: actor.userId,
        created_at: clock.now(),
        purpose: 'alerts',
        kind,
        options: JSON.stringify(options),
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await deps.audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'channel.create',
          targetType: 'channel',
          targetId: row.id,
          detail: { kind, url: originOf(url) },
        });
      });
      return toChannel(row, options, clock, { revealSecret: generated });
    },

    async list(actor: Actor) {
      const rows = await repo.list(db, actor.app.id, 'alerts');
      return rows.map((r) => toChannel(r, parseOptions(r), clock));
    },

    async update(actor: Actor, change: { channelId: string; input: ChannelInput }) {
      const appId = actor.app.id;
      const row = await channelOf(appId, change.channelId);
      const { input } = change;
      if (input.kind !== undefined && input.kind.trim().toLowerCase() !== row.kind)
        throw badRequest("A channel's kind does not change: make a new channel");
      if (input.active !== undefined && input.active !== 0 && input.active !== 1) throw badRequest("Invalid parameter 'active': 0 or 1");
      const url = input.url !== undefined ? await checkedUrl(input.url) : row.url;
      const secret = input.secret !== undefined ? (secretOf(row.kind, input.secret) ?? '') : row.secret;
      if (row.kind === 'webhook' && secret === '')
        throw failure('channel_secret_invalid', 'a webhook channel keeps a secret: give a new one to replace it');
      const options = optionsOf(row.kind, input, parseOptions(row));
      const status = input.active === undefined ? row.status : input.active === 1 ? 'active' : 'disabled';
      const patch = {
        url,
        secret,
        options: JSON.stringify(options),
        status,
        disabled_reason: status === 'active' ? null : input.active === 0 ? 'turned off' : row.disabled_reason,
      };
      await db.transaction().execute(async (trx) => {
        await repo.update(trx, appId, row.id, patch);
        await deps.audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'channel.update',
          targetType: 'channel',
          targetId: row.id,
          detail: { kind: row.kind, url: originOf(url) },
        });
      });
      return toChannel({ ...row, ...patch }, options, clock);
    },

    async remove(actor: Actor, channelId: string): Promise<true> {
      const appId = actor.app.id;
      const row = await channelOf(appId, channelId);
      await db.transaction().execute(async (trx) => {
        await repo.remove(trx, appId, row.id);
        await deps.audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'channel.remove',
          targetType: 'channel',
          targetId: row.id,
          detail: { kind: row.kind, url: originOf(row.url) },
        });
      });
      return true;
    },

    /** Posts a test message now and answers what the platform said (a disabled channel too: is it back?). */
    async test(actor: Actor, channelId: string): Promise<SendResult> {
      const row = await channelOf(actor.app.id, channelId);
      return sendTest(row);
    },

    /**
     * The project's active channels and the signals each posts (the alerts' evaluator); `executor`: the
     * caller's open transaction, when it asks inside one (SQLite's one write connection is held by it).
     */
    async active(appId: string, executor: Kysely<Database> = db): Promise<ActiveChannel[]> {
      const rows = await repo.activeChannels(executor, appId);
      return rows.map((r) => {
        const o = parseOptions(r);
        return {
          id: r.id,
          signals: (o?.signals ?? [...ALERT_SIGNALS]).filter(isAlertSignal),
          readThreshold: o?.readThreshold ?? DEFAULT_CHANNEL_THRESHOLD,
        };
      });
    },

    /**
     * Plans the posts of signals to channels in the caller's transaction (the one that writes the
     * signals and their Alert events): one delivery per signal and channel, made once; the relay sends
     * them, retries them and dead-letters them as every webhook delivery.
     */
    async enqueue(trx: Kysely<Database>, appId: string, posts: ChannelPost[], now: number): Promise<void> {
      if (posts.length === 0) return;
      await repo.insertDeliveriesOnce(
        trx,
        posts.map((p) => ({
          app_id: appId,
          webhook_id: p.channelId,
          event_ids: JSON.stringify([p.eventId]),
          first_seq: null,
          last_seq: null,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          last_status_code: null,
          last_error: null,
          created_at: now,
          delivered_at: null,
          dedupe_key: `alert:${p.signalId}`,
        })),
      );
    },
  };
}

export type NotificationChannels = ReturnType<typeof createNotificationChannels>;
