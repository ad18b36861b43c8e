import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export function toWebhook(w: WebhookRow, clock: Clock) {
  return {
    id: w.id,
    appId: w.app_id,
    url: w.url,
    secret: w.secret,
    domainTypes: w.domain_types ? w.domain_types.split(',') : null,
    status: w.status,
    disabledReason: w.disabled_reason,
    createdAt: clock.format(w.created_at),
  };
}

export function toDelivery(d: DeliveryRow, clock: Clock) {
  return {
    id: String(d.id),
    eventIds: JSON.parse(d.event_ids) as string[],
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    nextAttemptAt: d.status === 'pending' ? clock.format(d.next_attempt_at) : null,
    createdAt: clock.format(d.created_at),
    deliveredAt: clock.format(d.delivered_at),
  };
}

/** A notification channel's options, as stored in its row (JSON). */
export interface ChannelOptions {
  /** The signals it posts (src/events/alert-events.ts ALERT_SIGNALS). */
  signals: string[];
  readThreshold: number;
  /** en-US or zh-CN. */
  locale: string;
  name: string | null;
}

/** What the audit log keeps of a URL: its origin (the path and query of some receivers are their credential). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** A channel's URL as answers show it: its origin and its last four characters (a robot's URL is its credential). */
export function maskedUrl(url: string): string {
  return `${originOf(url)}/…${url.length > 24 ? url.slice(-4) : ''}`;
}

/** A secret as answers show it: `****` and, for a long one, its last four characters. */
export function maskedSecret(secret: string): string {
  return secret.length >= 16 ? `****${secret.slice(-4)}` : '****';
}

/** A notification channel as the API answers it; the secret in full only once, when the server made it. */
export function toChannel(w: WebhookRow, options: ChannelOptions | null, clock: Clock, opts: { revealSecret?: boolean } = {}) {
  return {
    id: w.id,
    appId: w.app_id,
    kind: w.kind,
    name: options?.name ?? null,
    url: maskedUrl(w.url),
    secret: w.secret === '' ? null : opts.revealSecret ? w.secret : maskedSecret(w.secret),
    events: options?.signals ?? [],
    readThreshold: options?.readThreshold ?? null,
    locale: options?.locale ?? null,
    status: w.status,
    disabledReason: w.disabled_reason,
    createdAt: clock.format(w.created_at),
  };
}
