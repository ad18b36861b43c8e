import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';

export type EventType = 'create' | 'update' | 'merge' | 'delete';

/** The interface's event message: `{event_type, domainType, domainId, body}`. */
export interface EventMessage {
  event_type: EventType;
  domainType: string;
  domainId: string;
  body: unknown;
}

/**
 * Writes event messages to the outbox. Call it with the transaction that makes the change, so
 * the change and its events commit together or not at all (architecture habit 3).
 */
export async function writeEvents(trx: Kysely<Database>, appId: string, events: EventMessage[], now: number): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({
    id: randomUUID(),
    app_id: appId,
    event_type: e.event_type,
    domain_type: e.domainType,
    domain_id: e.domainId,
    body: JSON.stringify(e.body),
    created_at: now,
    seq: null,
  }));
  // Chunked so a large ingestion batch stays within every dialect's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('outbox')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return rows.map((r) => r.id);
}
