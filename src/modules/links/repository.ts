import { type Database, type PreparedReader, crossProject, preparedQuery } from '../../db/index.ts';
import { type Insertable, type Kysely, type Updateable, sql } from 'kysely';
import type { DurationRow, LinkRow, SilentView, ViewRow } from './mapper.ts';

type Db = Kysely<Database>;

/**
 * A link by its share token, whatever its project: the public viewer knows only the token (share
 * tokens are unique across projects). The viewer's every request starts here.
 */
const linkByToken = preparedQuery('linkByShareToken', ({ db }, token: string) =>
  db.selectFrom('links').selectAll().where('share_token', '=', token).modifyEnd(crossProject('share-token')),
);

const viewLog = preparedQuery('viewerViewLog', ({ db }, appId: string, id: string) =>
  db.selectFrom('link_view_logs').selectAll().where('app_id', '=', appId).where('id', '=', id),
);

const viewDurations = preparedQuery('viewerViewDurations', ({ db }, appId: string, id: string) =>
  db.selectFrom('link_view_durations as d').selectAll('d').where('d.app_id', '=', appId).where('d.link_view_log_id', '=', id),
);

/** The visitor's latest view of the link that had a beacon at or after `since` (a reload continues it). */
const recentView = preparedQuery('viewerRecentView', ({ db }, appId: string, visitorId: string, linkId: string, since: number) =>
  db
    .selectFrom('link_view_logs')
    .select(['id', 'beacon_seq'])
    .where('app_id', '=', appId)
    .where('visitor_id', '=', visitorId)
    .where('link_id', '=', linkId)
    .where('beacon_at', '>=', since)
    .orderBy('view_time', 'desc')
    .orderBy('id', 'desc')
    .limit(1),
);

const visitorCustomer = preparedQuery('viewerVisitorCustomer', ({ db }, appId: string, visitorId: string) =>
  db.selectFrom('visitors').select('customer_id').where('app_id', '=', appId).where('id', '=', visitorId),
);

/** Another view of the link by the customer than this one (the owner's e-mail goes out on the first). */
const otherCustomerView = preparedQuery(
  'viewerOtherCustomerView',
  ({ db }, appId: string, linkId: string, customerId: string, except: string) =>
    db
      .selectFrom('link_view_logs')
      .select('id')
      .where('app_id', '=', appId)
      .where('link_id', '=', linkId)
      .where('customer_id', '=', customerId)
      .where('id', '!=', except)
      .limit(1),
);

/** SQL of links made through the API, and of the views the public viewer records. */
export const linksRepository = {
  async insert(db: Db, row: Insertable<Database['links']>): Promise<void> {
    await db.insertInto('links').values(row).execute();
  },

  find(db: Db, appId: string, id: string): Promise<LinkRow | undefined> {
    return db.selectFrom('links').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  async update(db: Db, appId: string, id: string, patch: Updateable<Database['links']>): Promise<boolean> {
    const res = await db.updateTable('links').set(patch).where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /** The link's agreement version, one more (its text changed). */
  async nextAgreementVersion(db: Db, appId: string, id: string): Promise<void> {
    await db
      .updateTable('links')
      .set((eb) => ({ agreement_version: eb('agreement_version', '+', 1) }))
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .execute();
  },

  /** The project's links with these share tokens. */
  async byShareTokens(db: Db, appId: string, tokens: string[]): Promise<{ id: string; share_token: string | null }[]> {
    if (tokens.length === 0) return [];
    return db.selectFrom('links').select(['id', 'share_token']).where('app_id', '=', appId).where('share_token', 'in', tokens).execute();
  },

  /** Whether any link (of any project: share tokens make URLs) has this share token. */
  async shareTokenTaken(db: Db, token: string): Promise<boolean> {
    return (
      (await db
        .selectFrom('links')
        .select('id')
        .where('share_token', '=', token)
        .modifyEnd(crossProject('share-token'))
        .executeTakeFirst()) !== undefined
    );
  },

  byShareToken(r: PreparedReader, token: string): Promise<LinkRow | undefined> {
    return r.first(linkByToken, token);
  },

  /** A view log of the project with its durations, in their order. */
  async view(r: PreparedReader, appId: string, id: string): Promise<{ view: ViewRow; durations: DurationRow[] } | undefined> {
    const [view, durations] = await Promise.all([r.first(viewLog, appId, id), r.all(viewDurations, appId, id)]);
    if (view === undefined) return undefined;
    return { view, durations: durations.sort((a, b) => a.position - b.position) };
  },

  recentView(r: PreparedReader, appId: string, visitorId: string, linkId: string, since: number) {
    return r.first(recentView, appId, visitorId, linkId, since);
  },

  async visitorCustomer(r: PreparedReader, appId: string, visitorId: string): Promise<string | null> {
    return (await r.first(visitorCustomer, appId, visitorId))?.customer_id ?? null;
  },

  async customerViewedBefore(r: PreparedReader, appId: string, linkId: string, customerId: string, except: string): Promise<boolean> {
    return (await r.first(otherCustomerView, appId, linkId, customerId, except)) !== undefined;
  },

  /**
   * Ties the visitor to a customer of the project (a later form ties it to the later customer), except
   * that an unverified tie never replaces a verified one. Answers whether the tie was written.
   */
  async tieVisitor(db: Db, appId: string, visitorId: string, customerId: string, now: number, verified = false): Promise<boolean> {
    const v = verified ? 1 : 0;
    const row = await db
      .insertInto('visitors')
      .values({ app_id: appId, id: visitorId, customer_id: customerId, created_at: now, updated_at: now, verified: v })
      .onConflict((oc) => {
        const update = oc.columns(['app_id', 'id']).doUpdateSet({ customer_id: customerId, updated_at: now, verified: v });
        return verified ? update : update.where(sql.ref('visitors.verified'), '=', 0);
      })
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  },

  /**
   * The visitor's view logs in the project that no customer has yet (newest first, at most `limit`),
   * each with its durations and what the behaviour records name of its link.
   */
  async anonymousViews(db: Db, appId: string, visitorId: string, limit: number) {
    const views = await db
      .selectFrom('link_view_logs as v')
      .innerJoin('links as l', (j) => j.onRef('l.id', '=', 'v.link_id').onRef('l.app_id', '=', 'v.app_id'))
      .selectAll('v')
      .select(['l.type as link_type', 'l.name as link_name', 'l.src as link_src', 'l.tags as link_tags'])
      .where('v.app_id', '=', appId)
      .where('v.visitor_id', '=', visitorId)
      .where('v.customer_id', 'is', null)
      .orderBy('v.view_time', 'desc')
      .limit(limit)
      .execute();
    if (views.length === 0) return [];
    const durations = await db
      .selectFrom('link_view_durations as d')
      .innerJoin('link_view_logs as v', (j) => j.onRef('v.id', '=', 'd.link_view_log_id').onRef('v.app_id', '=', 'd.app_id'))
      .selectAll('d')
      .where('d.app_id', '=', appId)
      .where('v.app_id', '=', appId)
      .where(
        'd.link_view_log_id',
        'in',
        views.map((v) => v.id),
      )
      .execute();
    return views.map((v) => ({
      ...v,
      durations: durations.filter((d) => d.link_view_log_id === v.id).sort((a, b) => a.position - b.position),
    }));
  },

  /** Until when the link's passcode is refused (a lockout), or null. */
  async passcodeLockedUntil(db: Db, appId: string, linkId: string): Promise<number | null> {
    const row = await db
      .selectFrom('link_passcode_failures')
      .select('locked_until')
      .where('app_id', '=', appId)
      .where('link_id', '=', linkId)
      .executeTakeFirst();
    return row?.locked_until == null ? null : Number(row.locked_until);
  },

  /**
   * Counts a wrong passcode of the link in one statement (every process and server counts on the same
   * row): a window starts with a failure and lasts `windowMs`; the `max`-th failure within it locks
   * the passcode until `lockUntil`. Answers the lock's end, or null.
   */
  async passcodeFailed(db: Db, appId: string, linkId: string, now: number, windowMs: number, max: number, lockUntil: number) {
    const t = 'link_passcode_failures';
    const cutoff = now - windowMs;
    const failures = sql<number>`case when ${sql.ref(`${t}.window_start`)} <= ${cutoff} then 1 else ${sql.ref(`${t}.failures`)} + 1 end`;
    const row = await db
      .insertInto(t)
      .values({ app_id: appId, link_id: linkId, window_start: now, failures: 1, locked_until: max <= 1 ? lockUntil : null })
      .onConflict((oc) =>
        oc.columns(['app_id', 'link_id']).doUpdateSet({
          window_start: sql<number>`case when ${sql.ref(`${t}.window_start`)} <= ${cutoff} then ${now} else ${sql.ref(`${t}.window_start`)} end`,
          failures,
          locked_until: sql<number | null>`case when ${failures} >= ${max} then ${lockUntil} else ${sql.ref(`${t}.locked_until`)} end`,
        }),
      )
      .returning('locked_until')
      .executeTakeFirstOrThrow();
    return row.locked_until == null ? null : Number(row.locked_until);
  },

  /** Disables the project's active links that show a room (the room was deleted); answers how many. */
  async disableOfRoom(db: Db, appId: string, roomId: string, now: number): Promise<number> {
    const res = await db
      .updateTable('links')
      .set({ status: 0, disabled_at: now, updated_at: now })
      .where('app_id', '=', appId)
      .where('room_id', '=', roomId)
      .where('status', '=', 1)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  },

  /** Forgets the link's wrong passcodes and any lockout (its passcode changed). */
  async clearPasscodeFailures(db: Db, appId: string, linkId: string): Promise<void> {
    await db.deleteFrom('link_passcode_failures').where('app_id', '=', appId).where('link_id', '=', linkId).execute();
  },

  /**
   * Views still open whose last beacon is older than `before`, oldest first, with their link: the
   * sweep closes them. Over every project: each server closes whatever views fell silent.
   */
  silentViews(db: Db, before: number, limit: number): Promise<SilentView[]> {
    return db
      .selectFrom('link_view_logs as v')
      .innerJoin('links as l', (j) => j.onRef('l.id', '=', 'v.link_id').onRef('l.app_id', '=', 'v.app_id'))
      .select([
        'v.app_id',
        'v.id',
        'v.link_id',
        'v.customer_id',
        'v.visitor_id',
        'v.view_time',
        'v.beacon_seq',
        'v.left_at',
        'l.type as link_type',
        'l.name as link_name',
        'l.src as link_src',
        'l.tags as link_tags',
      ])
      .select((eb) => eb.fn.coalesce('v.beacon_at', eb.val(0)).as('beacon_at'))
      .where('v.closed_at', 'is', null)
      .where('v.beacon_at', 'is not', null)
      .where('v.beacon_at', '<', before)
      .orderBy('v.beacon_at')
      .limit(limit)
      .modifyEnd(crossProject('view-sweep'))
      .execute() as Promise<SilentView[]>;
  },
};
