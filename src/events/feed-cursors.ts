import { type Database, crossProject } from '../db/index.ts';
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/time.ts';
import { type FeedEvent, lastPosition, toFeedEvents } from './sequencer.ts';

/**
 * Readers of the whole feed by position (docs/events.md "Order and the feed"), each with a named
 * cursor in `event_cursors`: the relay's NATS sink, the alerts' evaluator (docs/alerts.md), the
 * playbooks' evaluator (docs/playbooks.md) and the sequences' readers (docs/sequences.md): its exits'
 * reader and the runner's deck-jump reader. The
 * relay keeps events until every named reader has passed them (its `feedReaders`).
 */

/** The alerts' evaluator's cursor: every server runs it, each pass taking up where the last one (of any server) ended. */
export const ALERTS_FEED_CURSOR = 'alerts';

/** The playbooks' evaluator's cursor (docs/playbooks.md): the same kind of reader as the alerts'. */
export const PLAYBOOKS_FEED_CURSOR = 'playbooks';

/** The sequences' exits reader (unsubscribe, bounce, a form, a deleted customer): every server runs it, as the evaluator. */
export const SEQUENCES_FEED_CURSOR = 'sequences';

/** The sequences runner's deck-jump reader (docs/sequences.md "Running"): a customer's reading of a sequence's deck moves their enrolment on. */
export const SEQUENCE_JUMPS_FEED_CURSOR = 'sequence-jumps';

/** A named reader's position, or null when it has none yet. */
export async function cursorPosition(db: Kysely<Database>, name: string): Promise<number | null> {
  const row = await db.selectFrom('event_cursors').select('position').where('name', '=', name).executeTakeFirst();
  return row === undefined ? null : Number(row.position);
}

/**
 * A reader's position, made at the feed's current end the first time (it reads the events written
 * from then on, as a new webhook does). Several processes starting at once agree on one.
 */
export async function startCursor(db: Kysely<Database>, name: string): Promise<number> {
  const known = await cursorPosition(db, name);
  if (known !== null) return known;
  const top = await lastPosition(db);
  await db
    .insertInto('event_cursors')
    .values({ name, position: top })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return (await cursorPosition(db, name)) ?? top;
}

/** Moves a reader from `from` to `to` in the caller's transaction, unless another process moved it meanwhile: false then. */
export async function advanceCursor(trx: Kysely<Database>, name: string, from: number, to: number): Promise<boolean> {
  const r = await trx
    .updateTable('event_cursors')
    .set({ position: to })
    .where('name', '=', name)
    .where('position', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Every project's events after a position, in feed order, with their bodies; of the behaviour
 * records (built from the stored records), only those of `behaviourActions` are read: the others
 * come with a null body, so a reader that needs a few actions does not read every record.
 */
export async function readWholeFeed(
  db: Kysely<Database>,
  clock: Clock,
  after: number,
  opts: { limit: number; behaviourActions: readonly string[] },
): Promise<(FeedEvent & { appId: string })[]> {
  const rows = await db
    .selectFrom('outbox')
    .selectAll()
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(opts.limit)
    .modifyEnd(crossProject('feed-reader'))
    .execute();
  return toFeedEvents(db, clock, rows, opts.behaviourActions);
}
