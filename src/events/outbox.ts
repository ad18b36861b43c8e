import { randomFillSync } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { OutboxTable } from '../db/schema.ts';

export type EventType = 'create' | 'update' | 'merge' | 'delete';

/**
 * The body of an event whose body is the stored record itself (issue 7): the outbox row then
 * holds no copy of it, and the relay, NATS and the feed build the documented body from the record
 * when they read the event (see `recordBodies` in messages.ts). Only for records that are never
 * changed after they are written (behaviour records).
 */
export const RECORD_BODY: unique symbol = Symbol('the stored record is the body');

/** The interface's event message: `{event_type, domainType, domainId, body}`. */
export interface EventMessage {
  event_type: EventType;
  domainType: string;
  domainId: string;
  body: unknown;
}

/** The outbox `body` of an event built from its stored record: empty, which no JSON text is. */
export const RECORD_BODY_TEXT = '';

const pool = Buffer.alloc(16 * 256);
let poolAt = pool.length;
let lastMs = 0;
let counter = 0;

/**
 * A new event id: a time-ordered UUID (RFC 9562 version 7, with a 12-bit counter so ids of one
 * process increase strictly). Ids of one batch are therefore adjacent in the outbox's primary-key
 * index — a random UUID lands on a random page of it, one dirty page per event.
 */
export function newEventId(now = Date.now()): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  if (now > lastMs) {
    lastMs = now;
    counter = ((b[6] as number) & 0x07) << 8; // a random start in the lower half, leaving room to count
  } else {
    counter += 1;
    if (counter > 0xfff) {
      // More than the counter holds in one millisecond: borrow the next one.
      lastMs += 1;
      counter = 0;
    }
  }
  const ms = lastMs;
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (counter >>> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Outbox rows for event messages (ids in the order of the messages). */
export function eventRows(appId: string, events: EventMessage[], now: number): Insertable<OutboxTable>[] {
  return events.map((e) => ({
    id: newEventId(),
    app_id: appId,
    event_type: e.event_type,
    domain_type: e.domainType,
    domain_id: e.domainId,
    body: e.body === RECORD_BODY ? RECORD_BODY_TEXT : JSON.stringify(e.body),
    created_at: now,
    seq: null,
  }));
}

/**
 * Writes event messages to the outbox. Call it with the transaction that makes the change, so
 * the change and its events commit together or not at all (architecture habit 3).
 */
export async function writeEvents(trx: Kysely<Database>, appId: string, events: EventMessage[], now: number): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = eventRows(appId, events, now);
  // Chunked so a large ingestion batch stays within every dialect's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('outbox')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return rows.map((r) => r.id);
}
