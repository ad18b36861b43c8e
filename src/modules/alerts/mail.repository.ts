/**
 * The alerts module's SQL of e-mail: the instant mails' queue (notifications `queued`, any server
 * takes one by a lease), the digests' queue (`alert_settings.next_digest_at`, any server takes a
 * member's digest by moving it to the next day), and the pruning of what has aged.
 */
import { type Database, type NotificationsTable, crossProject, timedQueue } from '../../db/index.ts';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { SettingsRow } from './repository.ts';

type Db = Kysely<Database>;
export type MailRow = Selectable<NotificationsTable>;

/** The instant mails' queue: notifications `queued`, due at `mail_next_at`, taken by a lease on it. */
const mailQueue = timedQueue(
  'notifications',
  { status: 'mail_status', waiting: 'queued', nextAt: 'mail_next_at' },
  crossProject('alert-mail'),
);

export const mailRepository = {
  /** Instant mails due to be sent (or whose sender's lease ran out), oldest first, in every project. */
  due(db: Db, now: number, limit: number): Promise<MailRow[]> {
    return mailQueue.due(db, now, limit);
  },

  /** Takes a mail until `until`, unless another server took it first: false then. */
  claim(db: Db, m: Pick<MailRow, 'app_id' | 'id' | 'mail_next_at'>, until: number): Promise<boolean> {
    return mailQueue.claim(db, { appId: m.app_id, id: m.id, nextAt: m.mail_next_at }, until);
  },

  async settle(db: Db, m: Pick<MailRow, 'app_id' | 'id'>, patch: Updateable<NotificationsTable>): Promise<void> {
    await db.updateTable('notifications').set(patch).where('app_id', '=', m.app_id).where('id', '=', m.id).execute();
  },

  /** Members whose digest is due, earliest first. */
  dueDigests(db: Db, now: number, limit: number): Promise<SettingsRow[]> {
    return db
      .selectFrom('alert_settings')
      .selectAll()
      .where('next_digest_at', 'is not', null)
      .where('next_digest_at', '<=', now)
      .orderBy('next_digest_at')
      .limit(limit)
      .execute();
  },

  /** Moves a member's digest from `from` to `to`, unless another server moved it first: false then. */
  async moveDigest(db: Db, userId: number, from: number, to: number): Promise<boolean> {
    const r = await db
      .updateTable('alert_settings')
      .set({ next_digest_at: to })
      .where('user_id', '=', userId)
      .where('next_digest_at', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Deletes, in every project, notifications and signals created before `before`, and readings over for a day (or stuck for two). */
  async prune(db: Db, before: number, now: number): Promise<number> {
    let removed = 0;
    for (const table of ['notifications', 'alert_signals'] as const) {
      const r = await db.deleteFrom(table).where('created_at', '<', before).modifyEnd(crossProject('alert-prune')).executeTakeFirst();
      removed += Number(r.numDeletedRows);
    }
    const r = await db
      .deleteFrom('alert_readings')
      .where((eb) => eb.or([eb('ended_at', '<', now - 86_400_000), eb('started_at', '<', now - 2 * 86_400_000)]))
      .modifyEnd(crossProject('alert-prune'))
      .executeTakeFirst();
    return removed + Number(r.numDeletedRows);
  },
};
