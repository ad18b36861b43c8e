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
