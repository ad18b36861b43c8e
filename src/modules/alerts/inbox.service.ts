import type { AppContext } from '../../context.ts';
import { badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { InboxFilter, InboxRepository } from './inbox.repository.ts';
import { toNotification } from './mapper.ts';
import { type AlertCaller, type MembershipsOf, standingOf } from './settings.service.ts';

/** The inbox's filters as a request gives them. */
export interface InboxQuery {
  unread?: number | undefined;
  app_id?: string | undefined;
}

const notificationNotFound = () => failure('notification_not_found');

/**
 * The console's inbox (docs/alerts.md "The inbox"): a member's notifications in every project they
 * are an active member of, about customers they may still see, newest first; the unread count; marking
 * one, or all, read. Another member's notification, or one about a customer the member may no longer
 * see, answers as a missing one.
 */
export function createInbox(ctx: AppContext, repo: InboxRepository, memberships: MembershipsOf) {
  const db = ctx.database.db;
  const { clock, config } = ctx;

  /** The member's filter, and the names of their projects; null when they are an active member of none (nothing to show). */
  async function filterOf(caller: AlertCaller, q: InboxQuery & { id?: string }) {
    if (q.unread !== undefined && q.unread !== 0 && q.unread !== 1) throw badRequest("Invalid parameter 'unread': 0 or 1");
    const { names, ...standing } = await standingOf(memberships, caller.id);
    if (q.app_id !== undefined && q.app_id !== '' && !names.has(q.app_id)) throw failure('app_not_found');
    if (names.size === 0) return null;
    const f: InboxFilter = { userId: caller.id, standing, kind: 'inbox', unread: q.unread === 1 };
    if (q.app_id !== undefined && q.app_id !== '') {
      // Another project's id answers as a missing one.
      if (!names.has(q.app_id)) throw failure('app_not_found');
      f.appId = q.app_id;
    }
    if (q.id !== undefined) f.id = q.id;
    return { f, names };
  }

  async function one(caller: AlertCaller, id: string) {
    const found = await filterOf(caller, { id });
    const [row] = found === null ? [] : await repo.page(db, found.f, 0, 1);
    if (row === undefined || found === null) throw notificationNotFound();
    return { row, name: found.names.get(row.app_id) ?? null };
  }

  return {
    async list(caller: AlertCaller, q: InboxQuery, page: Page) {
      const found = await filterOf(caller, q);
      if (found === null) return [];
      const rows = await repo.page(db, found.f, page.offset, page.limit);
      return rows.map((r) => toNotification(r, found.names.get(r.app_id) ?? null, clock, config.publicBaseUrl));
    },

    async unreadCount(caller: AlertCaller, q: InboxQuery): Promise<{ unread: number }> {
      const found = await filterOf(caller, q);
      return { unread: found === null ? 0 : await repo.count(db, { ...found.f, unread: true }) };
    },

    async markRead(caller: AlertCaller, id: string) {
      const { row, name } = await one(caller, id);
      const now = clock.now();
      if (row.read_at === null) await repo.markRead(db, caller.id, row.app_id, row.id, now);
      return toNotification({ ...row, read_at: row.read_at ?? now }, name, clock, config.publicBaseUrl);
    },

    /** Marks every unread notification read, or one project's, or those up to one (`until`, a notification's id: the newest the member saw). */
    async markAllRead(
      caller: AlertCaller,
      input: { app_id?: string | undefined; until?: string | undefined },
    ): Promise<{ updated: number }> {
      const until = input.until === undefined || input.until === '' ? undefined : (await one(caller, input.until)).row.created_at;
      const appId = input.app_id === undefined || input.app_id === '' ? undefined : input.app_id;
      if (appId !== undefined && !(await standingOf(memberships, caller.id)).names.has(appId)) throw failure('app_not_found');
      const updated = await repo.markAllRead(db, caller.id, {
        ...(appId !== undefined ? { appId } : {}),
        ...(until !== undefined ? { until } : {}),
        now: clock.now(),
      });
      return { updated };
    },
  };
}

export type Inbox = ReturnType<typeof createInbox>;
