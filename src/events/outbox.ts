import { type OutboxTable, type Database, type DialectFeatures, bulkOps, crossProject } from '../db/index.ts';
import type { Insertable, Kysely } from 'kysely';
import { timeOrderedUuid } from '../lib/ids.ts';

/**
 * `create`, `update`, `merge`, `delete` (the interface's settled four), the tasks module's two
 * (docs/events.md): `complete` (a task marked done) and `due` (a task came due), and the scoring
 * module's `hot` (a customer announced as a hot lead), and an enrolment's steps through a sequence
 * (docs/sequences.md "Events out").
 */
export type EventType =
  | 'create'
  | 'update'
  | 'merge'
  | 'delete'
  | 'complete'
  | 'due'
  | 'hot'
  | 'enrolled'
  | 'paused'
  | 'resumed'
  | 'step'
  | 'finished'
  | 'exited';

/**
 * The body of an event whose body is the stored record itself (ADR 0010): the outbox row then
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

/** A new event id: time-ordered, so ids of one batch are adjacent in the outbox's primary-key index. */
export const newEventId = timeOrderedUuid;

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
 * A writer of outbox rows made by eventRows (of one or many batches) with the bulk writer: one
 * statement per chunk, as ingestion's write path writes its records. Built once (the bulk writer keeps
 * its statement texts); call it with the transaction of the change.
 */
export function eventRowsWriter(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return (trx: Kysely<Database>, rows: Insertable<OutboxTable>[]): Promise<void> => bulk.insert(trx, 'outbox', rows);
}

/**
 * Writes event messages to the outbox. Call it with the transaction that makes the change, so
 * the change and its events commit together or not at all (docs/architecture.md).
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

/**
 * An outbox writer for large batches (a batch of new customers): as writeEvents, with the database's
 * bulk writer (src/db/bulk.ts), one statement per chunk. Built once; call it with the change's transaction.
 */
export function bulkEventWriter(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return (trx: Kysely<Database>, appId: string, events: EventMessage[], now: number): Promise<void> =>
    bulk.insert(trx, 'outbox', eventRows(appId, events, now));
}

/**
 * For erasure (docs/customers.md, "Erasure"): empties (`{}`) the bodies of the Customer events of
 * these customers that the outbox still holds, which carry the customer object; returns how many.
 * Built once; call it with the erasure's transaction.
 */
export function customerEventEraser(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return async (trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> => {
    const r = await trx
      .updateTable('outbox')
      .set({ body: '{}' })
      .where('app_id', '=', appId)
      .where('domain_type', '=', 'Customer')
      .where(bulk.anyOf('domain_id', customerIds))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  };
}

/**
 * For erasure: empties (`{}`) the bodies of the events of `domainType` about these records (a Note's
 * or a Task's, which carry what the team wrote about an erased customer) that the outbox still
 * holds; returns how many. Built once; call it with the erasure's transaction.
 */
export function eventBodyEraser(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return async (trx: Kysely<Database>, appId: string, domainType: string, ids: string[]): Promise<number> => {
    if (ids.length === 0) return 0;
    const r = await trx
      .updateTable('outbox')
      .set({ body: '{}' })
      .where('app_id', '=', appId)
      .where('domain_type', '=', domainType)
      .where(bulk.anyOf('domain_id', ids))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  };
}

/** What waits to be delivered, for metrics: events the relay has not sequenced, and open webhook deliveries. */
export interface OutboxBacklog {
  /** Committed events without a feed position yet (the relay has not taken them). */
  pendingEvents: number;
  /** created_at of the oldest of them (epoch ms), null when none. */
  oldestPendingAt: number | null;
  /** Webhook deliveries waiting to be sent or retried. */
  pendingDeliveries: number;
  /** created_at of the oldest of them (epoch ms), null when none. */
  oldestDeliveryAt: number | null;
  /** Deliveries given up on (dead letters, kept for replay). */
  deadDeliveries: number;
}

/** Reads the backlog: three aggregate reads over partial and status indexes (cheap while the backlog is small). */
export async function outboxBacklog(db: Kysely<Database>): Promise<OutboxBacklog> {
  const events = await db
    .selectFrom('outbox')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('seq', 'is', null)
    .modifyEnd(crossProject('event-relay'))
    .executeTakeFirst();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .modifyEnd(crossProject('event-relay'))
    .executeTakeFirst();
  const dead = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'dead')
    .modifyEnd(crossProject('event-relay'))
    .executeTakeFirst();
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    pendingEvents: Number(events?.n ?? 0),
    oldestPendingAt: num(events?.oldest),
    pendingDeliveries: Number(deliveries?.n ?? 0),
    oldestDeliveryAt: num(deliveries?.oldest),
    deadDeliveries: Number(dead?.n ?? 0),
  };
}
