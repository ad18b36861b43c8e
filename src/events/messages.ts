import type { Insertable } from 'kysely';
import type { BehaviourLogsTable } from '../db/schema.ts';
import type { Clock } from '../lib/time.ts';

/** The interface's behaviour event body (Events: "Behaviour body fields"). */
export function behaviourEventBody(row: Insertable<BehaviourLogsTable>, clock: Clock) {
  return {
    id: row.id,
    appId: row.app_id,
    svcUserId: row.svc_user_id ?? null,
    customerId: row.customer_id,
    customerName: row.customer_name ?? null,
    dealUserId: row.deal_user_id ?? null,
    action: row.action,
    params: row.params ?? null,
    remote_duration: row.remote_duration ?? null,
    description: row.description ?? null,
    when: clock.format(row.when_at),
    content: row.content ?? null,
    clientName: row.client_name ?? null,
    clientVersion: row.client_version ?? null,
    os: row.os ?? null,
    osVersion: row.os_version ?? null,
    net: row.net ?? null,
    ip: row.ip ?? null,
    location: row.location ?? null,
    province: row.province ?? null,
    city: row.city ?? null,
    createdTime: clock.format(row.created_at),
    userType: row.user_type,
  };
}
