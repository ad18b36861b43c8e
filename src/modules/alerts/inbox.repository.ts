/**
 * The alerts module's SQL of a member's notifications across their projects (the inbox, the
 * digest's lines). The member's standing is given (their active memberships: the projects where they
 * see every customer, and those where they see their own), and each statement keeps a notification
 * only while its customer is live and, in a project where the member is a Sales member, theirs: the
 * customers module's read model, correlated on the notification's columns, so what the member may no
 * longer see drops out in the same statement.
 */
import { type Database, crossProject } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import type { InboxRow } from './mapper.ts';

type Db = Kysely<Database>;

/** A member's active memberships: where they see every customer (Master, Admin), and where their own (Sales). */
export interface Standing {
  managerOf: string[];
  salesOf: string[];
}

/** Which of a member's notifications: the inbox's (unread ones, one project's, one) or the next digest's. */
export interface InboxFilter {
  userId: number;
  standing: Standing;
  kind: 'inbox' | 'digest';
  unread?: boolean;
  appId?: string;
  id?: string;
}

export function createInboxRepository(customers: CustomerVisibilityReadModel) {
  /** The member's notifications they may still see. */
  function visible(db: Db, f: InboxFilter) {
    let q = db
      .selectFrom('notifications as n')
      .where('n.user_id', '=', f.userId)
      .where((eb) => {
        const live = (owner: number | null) => eb.exists(customers.liveWithId(db, eb.ref('n.app_id'), eb.ref('n.customer_id'), owner));
        const parts = [];
        if (f.standing.managerOf.length > 0) parts.push(eb.and([eb('n.app_id', 'in', f.standing.managerOf), live(null)]));
        if (f.standing.salesOf.length > 0) parts.push(eb.and([eb('n.app_id', 'in', f.standing.salesOf), live(f.userId)]));
        return eb.or(parts);
      });
    q = f.kind === 'inbox' ? q.where('n.inbox', '=', 1) : q.where('n.mail_status', '=', 'digest');
    if (f.unread === true) q = q.where('n.read_at', 'is', null);
    if (f.appId !== undefined) q = q.where('n.app_id', '=', f.appId);
    if (f.id !== undefined) q = q.where('n.id', '=', f.id);
    return q;
  }

  return {
    /** A page of the member's notifications, newest first, each with its customer's name. */
    page(db: Db, f: InboxFilter, offset: number, limit: number): Promise<InboxRow[]> {
      return visible(db, f)
        .select(['n.id', 'n.app_id', 'n.signal', 'n.customer_id', 'n.title', 'n.body', 'n.data', 'n.read_at', 'n.created_at'])
        .select((eb) => customers.liveWithId(db, eb.ref('n.app_id'), eb.ref('n.customer_id'), null).as('customer_name'))
        .orderBy('n.created_at', 'desc')
        .orderBy('n.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute();
    },

    async count(db: Db, f: InboxFilter): Promise<number> {
      const row = await visible(db, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Marks one of the member's notifications read. */
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
      if (opts.until !== undefined) q = q.where('created_at', '<=', opts.until);
      const r = await (
        opts.appId !== undefined ? q.where('app_id', '=', opts.appId) : q.modifyEnd(crossProject('user-notifications'))
      ).executeTakeFirst();
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

    /** Settles digest lines: sent, or dropped (no longer visible, beyond the digest's lines). */
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
