/**
 * The alerts module's SQL of a member's notifications in every project (the inbox, the digest's
 * lines): each statement joins the member's active memberships (the members module's read model) and
 * the live customers (the customers module's), and keeps a Sales member's notifications about their
 * own customers only, so what a member may no longer see drops out in the same statement.
 */
import { type Database, crossProject } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import type { MemberStandingReadModel } from '../members/mapper.ts';
import type { InboxRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Which of a member's notifications: the inbox's (unread ones, one project's) or the next digest's. */
export interface InboxFilter {
  userId: number;
  kind: 'inbox' | 'digest';
  unread?: boolean;
  appId?: string;
  id?: string;
}

export function createInboxRepository(reads: { members: MemberStandingReadModel; customers: CustomerVisibilityReadModel }) {
  /** The member's notifications they may still see, with the project's and the customer's names. */
  function visible(db: Db, f: InboxFilter) {
    let q = db
      .selectFrom('notifications as n')
      .innerJoin(reads.members.activeOf(db, f.userId).as('m'), 'm.app_id', 'n.app_id')
      .innerJoin(reads.customers.liveAnyProject(db).as('c'), (j) =>
        j.onRef('c.app_id', '=', 'n.app_id').onRef('c.id', '=', 'n.customer_id'),
      )
      .where('n.user_id', '=', f.userId)
      .where((eb) => eb.or([eb('m.role', '!=', 'Sales'), eb('c.owner_id', '=', f.userId)]));
    q = f.kind === 'inbox' ? q.where('n.inbox', '=', 1) : q.where('n.mail_status', '=', 'digest');
    if (f.unread === true) q = q.where('n.read_at', 'is', null);
    if (f.appId !== undefined) q = q.where('n.app_id', '=', f.appId);
    if (f.id !== undefined) q = q.where('n.id', '=', f.id);
    return q;
  }

  const columns = [
    'n.id',
    'n.app_id',
    'm.app_name',
    'n.signal',
    'n.customer_id',
    'c.name as customer_name',
    'n.title',
    'n.body',
    'n.data',
    'n.read_at',
    'n.created_at',
  ] as const;

  return {
    /** A page of the member's notifications, newest first. */
    page(db: Db, f: InboxFilter, offset: number, limit: number): Promise<InboxRow[]> {
      return visible(db, f)
        .select(columns)
        .orderBy('n.created_at', 'desc')
        .orderBy('n.id', 'desc')
        .offset(offset)
        .limit(limit)
        .modifyEnd(crossProject('user-notifications'))
        .execute();
    },

    async count(db: Db, f: InboxFilter): Promise<number> {
      const row = await visible(db, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .modifyEnd(crossProject('user-notifications'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Marks one notification read (the member's, visible); false when there is none such. */
    async markRead(db: Db, userId: number, appId: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('notifications')
        .set({ read_at: now })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('read_at', 'is', null)
        .execute();
    },

    /** Marks the member's unread inbox notifications read (one project's; those up to a time); returns how many. */
    async markAllRead(db: Db, userId: number, opts: { appId?: string; until?: number; now: number }): Promise<number> {
      let q = db
        .updateTable('notifications')
        .set({ read_at: opts.now })
        .where('user_id', '=', userId)
        .where('inbox', '=', 1)
        .where('read_at', 'is', null);
      if (opts.appId !== undefined) q = q.where('app_id', '=', opts.appId);
      if (opts.until !== undefined) q = q.where('created_at', '<=', opts.until);
      const r = await q.modifyEnd(crossProject('user-notifications')).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    /** The member's lines still waiting for a digest, ids only (whether or not they may still be seen). */
    async pendingDigest(db: Db, userId: number, before: number): Promise<{ app_id: string; id: string }[]> {
      return db
        .selectFrom('notifications')
        .select(['app_id', 'id'])
        .where('user_id', '=', userId)
        .where('mail_status', '=', 'digest')
        .where('created_at', '<=', before)
        .limit(5000)
        .modifyEnd(crossProject('user-notifications'))
        .execute();
    },

    /** Settles digest lines: sent, or dropped (no longer visible, too old). */
    async settleDigest(db: Db, appId: string, ids: string[], status: 'sent' | 'dropped', now: number): Promise<void> {
      for (let i = 0; i < ids.length; i += 500) {
        await db
          .updateTable('notifications')
          .set({ mail_status: status, mailed_at: status === 'sent' ? now : null })
          .where('app_id', '=', appId)
          .where('id', 'in', ids.slice(i, i + 500))
          .where('mail_status', '=', 'digest')
          .execute();
      }
    },

    /** A member who left the digest: their waiting lines are dropped. */
    async dropDigest(db: Db, userId: number): Promise<void> {
      await db
        .updateTable('notifications')
        .set({ mail_status: 'dropped' })
        .where('user_id', '=', userId)
        .where('mail_status', '=', 'digest')
        .modifyEnd(crossProject('user-notifications'))
        .execute();
    },
  };
}

export type InboxRepository = ReturnType<typeof createInboxRepository>;
