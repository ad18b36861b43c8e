import type { Clock } from '../../lib/time.ts';
import type { Action, Definition, Filters, Limit, Trigger } from './definition.ts';
import type { PlaybookRow, RunRow } from './repository.ts';

/** A playbook as the API answers it. */
export interface PlaybookResponse {
  id: string;
  name: string;
  enabled: boolean;
  trigger: Trigger;
  filters: Filters;
  actions: Action[];
  limit: { kind: string; days?: number };
  createdBy: number;
  createdAt: string;
  updatedAt: string;
  /** Only when made: what its webhook calls are signed with. */
  secret?: string;
}

export interface RunResponse {
  id: string;
  customerId: string;
  eventId: string;
  recordedAt: string;
  at: string;
  lagMs: number;
  actions: unknown[];
  webhook: { status: string; attempts: number; error: string | null } | null;
}

const parse = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export function definitionOfRow(row: PlaybookRow): Definition {
  const limit: Limit = { kind: row.limit_kind as Limit['kind'], days: row.limit_days };
  return {
    name: row.name,
    enabled: row.enabled === 1,
    trigger: parse<Trigger>(row.trigger_def, { kind: 'deck_read', conditions: {} }),
    filters: parse<Filters>(row.filters, {}),
    actions: parse<Action[]>(row.actions, []),
    limit,
  };
}

export function toPlaybook(row: PlaybookRow, clock: Clock, withSecret = false): PlaybookResponse {
  const d = definitionOfRow(row);
  return {
    id: row.id,
    name: d.name,
    enabled: d.enabled,
    trigger: d.trigger,
    filters: d.filters,
    actions: d.actions,
    limit: d.limit.kind === 'per_period' ? { kind: d.limit.kind, days: d.limit.days ?? 1 } : { kind: d.limit.kind },
    createdBy: row.created_by,
    createdAt: clock.format(row.created_at),
    updatedAt: clock.format(row.updated_at),
    ...(withSecret ? { secret: row.secret } : {}),
  };
}

export function toRun(row: RunRow, clock: Clock): RunResponse {
  return {
    id: row.id,
    customerId: row.customer_id,
    eventId: row.event_id,
    recordedAt: clock.format(row.recorded_at),
    at: clock.format(row.created_at),
    lagMs: Math.max(0, row.created_at - row.recorded_at),
    actions: parse<unknown[]>(row.outcome, []),
    webhook: row.webhook_status === null ? null : { status: row.webhook_status, attempts: row.webhook_attempts, error: row.webhook_error },
  };
}
