import { type OutboxTable, type Database, type DialectFeatures, crossProject } from '../db/index.ts';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Clock } from '../lib/time.ts';
import { recordBodies } from './messages.ts';
import { RECORD_BODY_TEXT } from './outbox.ts';

const SEQUENCER_LOCK = 727_001;
const BATCH = 1000;

/** The last feed position given so far (0 for none): positions are one order over every project. */
export async function lastPosition(db: Kysely<Database>): Promise<number> {
  // `seq is not null` lets the partial position index answer (migration 010).
  const top = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.max('seq').as('m'))
    .where('seq', 'is not', null)
    .modifyEnd(crossProject('event-sequencer'))
    .executeTakeFirst();
  return Number(top?.m ?? 0);
}

/** The first feed position still kept for a project (0 for none). */
export async function oldestPosition(db: Kysely<Database>, appId: string): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select('seq')
    .where('app_id', '=', appId)
    .where('seq', 'is not', null)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** A project's stored events among these ids, with their feed positions (null: not sequenced yet); read with `db` (a transaction). */
export function storedEvents(db: Kysely<Database>, appId: string, ids: string[]): Promise<{ id: string; seq: number | null }[]> {
  return db.selectFrom('outbox').select(['id', 'seq']).where('app_id', '=', appId).where('id', 'in', ids).execute();
}

/**
 * Gives committed outbox rows their feed position. Rows get a position only once committed and
 * visible, under a lock that serialises sequencers, and each run's positions commit together, so a
 * reader paging by position can never pass a row that becomes visible later: a transaction that
 * commits late simply gets a later position. Returns how many rows were sequenced.
 */
export async function sequenceOutbox(db: Kysely<Database>, features: DialectFeatures, limit = BATCH): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await features.transactionLock(trx, SEQUENCER_LOCK);
    const base = await lastPosition(trx);
    // One statement for the whole run (UPDATE … FROM, SQLite ≥ 3.33 and PostgreSQL): the pending
    // rows in commit-visible order, numbered on from the last position. Row by row it was one
    // statement per event, the relay's ceiling (~3,000 events/s on PostgreSQL).
    const result = await trx
      .updateTable('outbox')
      .from(
        trx
          .selectFrom(
            // The next `limit` pending rows first, then numbered: a backlog is never sorted whole.
            trx
              .selectFrom('outbox')
              .select(['id', 'app_id', 'created_at'])
              .where('seq', 'is', null)
              .orderBy('created_at')
              .orderBy('id')
              .limit(limit)
              .as('next'),
          )
          .select(['next.id', 'next.app_id', sql<number>`${base} + row_number() over (order by next.created_at, next.id)`.as('n')])
          .as('pending'),
      )
      .set((eb) => ({ seq: eb.ref('pending.n') }))
      // Each row found again in its own project (a co-located join where rows are distributed by project).
      .whereRef('outbox.app_id', '=', 'pending.app_id')
      .whereRef('outbox.id', '=', 'pending.id')
      .modifyEnd(crossProject('event-sequencer'))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  });
}

export interface FeedEvent {
  id: string;
  seq: number;
  event_type: string;
  domainType: string;
  domainId: string;
  body: unknown;
  createdAt: number;
}

/** Events of a project after a position, in feed order. */
export async function readFeed(db: Kysely<Database>, clock: Clock, appId: string, after: number, limit: number): Promise<FeedEvent[]> {
  const rows = await db
    .selectFrom('outbox')
    .selectAll()
    .where('app_id', '=', appId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return toFeedEvents(db, clock, rows);
}

/** Positions and types of a project's events after a position, in feed order (no bodies). */
export async function readFeedPositions(
  db: Kysely<Database>,
  appId: string,
  after: number,
  limit: number,
): Promise<{ id: string; seq: number; domainType: string }[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'seq', 'domain_type'])
    .where('seq', '>', after)
    .where('app_id', '=', appId)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, seq: Number(r.seq), domainType: r.domain_type }));
}

/**
 * Outbox rows as feed events, in the same order. A body copied into the row is parsed; a body
 * that is the stored record (RECORD_BODY) is built from the record, all records in one read
 * (with `behaviourActions`, only the behaviour records of those actions: the others' bodies are null).
 */
export async function toFeedEvents(
  db: Kysely<Database>,
  clock: Clock,
  rows: Selectable<OutboxTable>[],
  behaviourActions?: readonly string[],
): Promise<(FeedEvent & { appId: string })[]> {
  const refs = rows
    .filter((r) => r.body === RECORD_BODY_TEXT)
    .map((r) => ({ appId: r.app_id, domainType: r.domain_type, domainId: r.domain_id }));
  const bodies = refs.length > 0 ? await recordBodies(db, clock, refs, behaviourActions) : null;
  return rows.map((r) => {
    const body = r.body === RECORD_BODY_TEXT ? (bodies?.get(r.domain_type)?.get(r.domain_id) ?? null) : (JSON.parse(r.body) as unknown);
    return {
      id: r.id,
      appId: r.app_id,
      seq: Number(r.seq),
      event_type: r.event_type,
      domainType: r.domain_type,
      domainId: r.domain_id,
      body,
      createdAt: r.created_at,
    };
  });
}

/** The message as delivered to consumers: the interface's shape plus the event id. */
export function toMessage(e: FeedEvent) {
  return { id: e.id, event_type: e.event_type, domainType: e.domainType, domainId: e.domainId, body: e.body };
}
