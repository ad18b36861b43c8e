import { type Database, crossProject } from '../../db/index.ts';
import { type Kysely, sql } from 'kysely';

type Db = Kysely<Database>;

/** One address (canonical) on one link's e-mail gate. */
export interface CodeKey {
  appId: string;
  linkId: string;
  address: string;
}

const T = 'link_email_codes';

/**
 * SQL of the e-mail gate's one-time codes (verification.service.ts): a row per address and link, its
 * code's hash and expiry, when it was sent, its wrong codes in their window and the lock they started.
 * Each step is one statement, so every process and server counts on the same row.
 */
export const verificationRepository = {
  /**
   * Stores a new code for the address unless one was sent within `resendMs` or the address is locked;
   * answers whether it was stored. The wrong codes counted so far stay.
   */
  async storeCode(db: Db, key: CodeKey, code: { hash: string; now: number; expiresAt: number; resendMs: number }): Promise<boolean> {
    const { now } = code;
    const row = await db
      .insertInto(T)
      .values({
        app_id: key.appId,
        link_id: key.linkId,
        address: key.address,
        code_hash: code.hash,
        expires_at: code.expiresAt,
        sent_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['app_id', 'link_id', 'address'])
          .doUpdateSet({ code_hash: code.hash, expires_at: code.expiresAt, sent_at: now })
          .where(sql.ref(`${T}.sent_at`), '<=', now - code.resendMs)
          .where((eb) => eb.or([eb(sql.ref(`${T}.locked_until`), 'is', null), eb(sql.ref(`${T}.locked_until`), '<=', now)])),
      )
      .returning('sent_at')
      .executeTakeFirst();
    return row !== undefined;
  },

  /** The address's row: its code's expiry, when it was sent, its lock. */
  state(db: Db, key: CodeKey) {
    return db
      .selectFrom(T)
      .select(['code_hash', 'expires_at', 'sent_at', 'locked_until'])
      .where('app_id', '=', key.appId)
      .where('link_id', '=', key.linkId)
      .where('address', '=', key.address)
      .executeTakeFirst();
  },

  /** A code the mail server did not take: forgotten, so that the reader may ask again at once. */
  async unsent(db: Db, key: CodeKey, hash: string): Promise<void> {
    await db
      .updateTable(T)
      .set({ code_hash: null, expires_at: null, sent_at: 0 })
      .where('app_id', '=', key.appId)
      .where('link_id', '=', key.linkId)
      .where('address', '=', key.address)
      .where('code_hash', '=', hash)
      .execute();
  },

  /** How many addresses of the link were sent a code since `since`. */
  async sentSince(db: Db, appId: string, linkId: string, since: number): Promise<number> {
    const row = await db
      .selectFrom(T)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('link_id', '=', linkId)
      .where('sent_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Forgets the link's rows whose code, wrong codes and lock are all over (sent before `before`). */
  async forgetOld(db: Db, appId: string, linkId: string, before: number, now: number): Promise<void> {
    await db
      .deleteFrom(T)
      .where('app_id', '=', appId)
      .where('link_id', '=', linkId)
      .where('sent_at', '<', before)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .execute();
  },

  /** Forgets every project's rows whose code, wrong codes and lock are all over (sent before `before`); answers how many. */
  async expire(db: Db, before: number, now: number): Promise<number> {
    const res = await db
      .deleteFrom(T)
      .where('sent_at', '<', before)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .modifyEnd(crossProject('link-code-expiry'))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  },

  /** Takes the address's code when it is this one, unexpired and not locked: true once, for one caller. */
  async consume(db: Db, key: CodeKey, hash: string, now: number): Promise<boolean> {
    const res = await db
      .deleteFrom(T)
      .where('app_id', '=', key.appId)
      .where('link_id', '=', key.linkId)
      .where('address', '=', key.address)
      .where('code_hash', '=', hash)
      .where('expires_at', '>', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  },

  /**
   * Counts a wrong code of the address in one statement: a window starts with a failure and lasts
   * `windowMs`; the `max`-th failure within it locks the address until `lockUntil` and forgets its
   * code. Answers the lock's end, or null.
   */
  async failed(db: Db, key: CodeKey, f: { now: number; windowMs: number; max: number; lockUntil: number }): Promise<number | null> {
    const cutoff = f.now - f.windowMs;
    const start = sql.ref(`${T}.window_start`);
    const failures = sql<number>`case when ${start} is null or ${start} <= ${cutoff} then 1 else ${sql.ref(`${T}.failures`)} + 1 end`;
    const row = await db
      .updateTable(T)
      .set({
        window_start: sql<number>`case when ${start} is null or ${start} <= ${cutoff} then ${f.now} else ${start} end`,
        failures,
        locked_until: sql<number | null>`case when ${failures} >= ${f.max} then ${f.lockUntil} else ${sql.ref(`${T}.locked_until`)} end`,
        code_hash: sql<string | null>`case when ${failures} >= ${f.max} then null else ${sql.ref(`${T}.code_hash`)} end`,
      })
      .where('app_id', '=', key.appId)
      .where('link_id', '=', key.linkId)
      .where('address', '=', key.address)
      .returning('locked_until')
      .executeTakeFirst();
    return row?.locked_until == null ? null : Number(row.locked_until);
  },
};
