import type { BehaviourLogsTable, Database } from '../db/index.ts';
import { type Insertable, type Kysely, sql } from 'kysely';
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

/** Ids per statement when reading records back (under every dialect's parameter limit). */
const READ_CHUNK = 500;

/**
 * Bodies of events written with RECORD_BODY (outbox.ts), built from the stored records: the same
 * body the event would have carried as a copy, since those records never change. Keyed by
 * `domainType` then `domainId`; a record that cannot be found (or, with `actions`, is of another
 * action) is absent from the map. Records are read project by project (a relay's batch holds events
 * of any number of projects).
 */
export async function recordBodies(
  db: Kysely<Database>,
  clock: Clock,
  refs: { appId: string; domainType: string; domainId: string }[],
  actions?: readonly string[],
): Promise<Map<string, Map<string, unknown>>> {
  const out = new Map<string, Map<string, unknown>>();
  const behaviourIds = new Map<string, Set<string>>();
  for (const r of refs) {
    if (r.domainType !== 'BehaviourLog') continue;
    const ids = behaviourIds.get(r.appId) ?? new Set<string>();
    ids.add(r.domainId);
    behaviourIds.set(r.appId, ids);
  }
  if (behaviourIds.size > 0) {
    const bodies = new Map<string, unknown>();
    for (const [appId, set] of behaviourIds) {
      const ids = [...set];
      for (let i = 0; i < ids.length; i += READ_CHUNK) {
        let q = db
          .selectFrom('behaviour_logs')
          .selectAll()
          .where('app_id', '=', appId)
          .where('id', 'in', ids.slice(i, i + READ_CHUNK));
        if (actions !== undefined) q = actions.length === 0 ? q.where(sql<boolean>`false`) : q.where('action', 'in', actions);
        const rows = await q.execute();
        for (const r of rows) bodies.set(r.id, behaviourEventBody(r, clock));
      }
    }
    out.set('BehaviourLog', bodies);
  }
  return out;
}
