import { preparedQuery, type UsersTable, type Database, type DatabaseHandle } from '../../db/index.ts';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { sha256 } from '../../lib/secrets.ts';
import type { CodePurpose } from './code-sender.ts';

export type UserRow = Selectable<UsersTable>;
/** A user's row before it is stored. */
export type NewUser = Insertable<UsersTable>;
/** The database, or a transaction of it. */
export type Db = Kysely<Database>;

/** SQL for platform users, their tokens, verification codes and failed log-ins. */
const userByAccessToken = preparedQuery('userByAccessToken', ({ db }, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .selectAll('users')
    .select('access_tokens.expires_at as token_expires_at')
    .where('access_tokens.token_hash', '=', tokenHash),
);

/** The server_secrets row console sign-ups lock in turn while no user exists; it holds no secret. */
const FIRST_ACCOUNT_CLAIM = 'first-account-claim';

/** An access token's user, and when the token expires (epoch ms). */
export interface TokenOwner {
  user: UserRow;
  expiresAt: number;
}

export const accountsRepository = {
  /** The server's secret of this name: made from `candidate` the first time any process asks, then always the same. */
  async serverSecret(db: Db, name: string, candidate: string, now: number): Promise<string> {
    await db
      .insertInto('server_secrets')
      .values({ name, value: candidate, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  },

  async insertUser(db: Db, user: Insertable<UsersTable>): Promise<UserRow> {
    return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  },

  findUserById(db: Db, id: number): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** By mobile number or (case-insensitively) e-mail. */
  findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
    const q = db.selectFrom('users').selectAll();
    return username.includes('@')
      ? q.where('email_lower', '=', username.toLowerCase()).executeTakeFirst()
      : q.where('phone_num', '=', username).executeTakeFirst();
  },

  async updateUser(db: Db, id: number, patch: Updateable<UsersTable>): Promise<UserRow | undefined> {
    return db.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
  },

  async emailTakenByOther(db: Db, emailLower: string, userId: number): Promise<boolean> {
    const row = await db
      .selectFrom('users')
      .select('id')
      .where('email_lower', '=', emailLower)
      .where('id', '!=', userId)
      .executeTakeFirst();
    return row !== undefined;
  },

  async insertAccessToken(db: Db, row: Database['access_tokens']): Promise<void> {
    await db.insertInto('access_tokens').values(row).execute();
  },

  async insertRefreshToken(db: Db, row: Database['refresh_tokens']): Promise<void> {
    await db.insertInto('refresh_tokens').values(row).execute();
  },

  /**
   * The user an access token belongs to, and when the token expires; undefined for an unknown
   * token. Every authenticated request asks, so the answer is kept in memory until a commit changes
   * users, tokens, projects or members. Keyed by the token itself (it is in memory with every
   * request anyway): hashing it is needed only to look it up, as the database stores no token in
   * the clear.
   */
  tokenOwner(database: DatabaseHandle, token: string): Promise<TokenOwner | undefined> {
    return database.cache<string, TokenOwner | undefined>('access-tokens', 'access').get(token, async () => {
      const row = await database.reader.first(userByAccessToken, sha256(token));
      if (row === undefined) return undefined;
      const { token_expires_at, ...user } = row;
      return { user, expiresAt: token_expires_at };
    });
  },

  /**
   * Writes the first-account claim row (a row of server_secrets, inserted or touched), which holds
   * its row lock until the caller's transaction ends: console sign-ups while no user exists take
   * it in turn, in every process (docs/console.md).
   */
  async lockFirstAccountClaim(db: Db, now: number): Promise<void> {
    await db
      .insertInto('server_secrets')
      .values({ name: FIRST_ACCOUNT_CLAIM, value: '', created_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ created_at: now }))
      .execute();
  },

  /** Whether any platform user exists (the console lets the first one sign up). */
  async anyUser(db: Db): Promise<boolean> {
    const row = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  },

  /** Deletes an access or refresh token issued through `clientId`; true when there was one. */
  async deleteToken(db: Db, table: 'access_tokens' | 'refresh_tokens', tokenHash: string, clientId: string): Promise<boolean> {
    const res = await db.deleteFrom(table).where('token_hash', '=', tokenHash).where('client_id', '=', clientId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  },

  findRefreshToken(db: Db, tokenHash: string, now: number) {
    return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
  },

  async touchLastSeen(db: Db, userId: number, now: number): Promise<void> {
    await db
      .insertInto('user_presence')
      .values({ user_id: userId, last_seen_at: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_seen_at: now }))
      .execute();
  },

  /** Deletes expired tokens and codes and failed log-ins older than the throttle window. */
  async pruneExpired(db: Db, now: number): Promise<number> {
    const results = await Promise.all([
      db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst(),
      db.deleteFrom('refresh_tokens').where('expires_at', '<=', now).executeTakeFirst(),
      db.deleteFrom('verification_codes').where('expires_at', '<=', now).executeTakeFirst(),
      db
        .deleteFrom('login_failures')
        .where('at', '<=', now - 15 * 60 * 1000)
        .executeTakeFirst(),
    ]);
    return results.reduce((sum, r) => sum + Number(r.numDeletedRows), 0);
  },

  async upsertVerificationCode(db: Db, row: Database['verification_codes']): Promise<void> {
    await db
      .insertInto('verification_codes')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['target', 'purpose']).doUpdateSet({
          code_hash: row.code_hash,
          expires_at: row.expires_at,
          created_at: row.created_at,
          attempts: 0,
        }),
      )
      .execute();
  },

  findVerificationCode(db: Db, target: string, purpose: CodePurpose) {
    return db.selectFrom('verification_codes').selectAll().where('target', '=', target).where('purpose', '=', purpose).executeTakeFirst();
  },

  /**
   * Counts one try of a live code that has tries left, and answers its hash; undefined when there is
   * no such code. One statement, so tries made at the same moment cannot pass the limit together.
   */
  async claimCodeAttempt(db: Db, target: string, purpose: CodePurpose, now: number, maxAttempts: number): Promise<string | undefined> {
    const row = await db
      .updateTable('verification_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('target', '=', target)
      .where('purpose', '=', purpose)
      .where('expires_at', '>', now)
      .where('attempts', '<', maxAttempts)
      .returning('code_hash')
      .executeTakeFirst();
    return row?.code_hash;
  },

  /** Deletes a code; true when there was one (a code is used once: whoever deletes it used it). */
  async deleteVerificationCode(db: Db, target: string, purpose: CodePurpose): Promise<boolean> {
    const res = await db.deleteFrom('verification_codes').where('target', '=', target).where('purpose', '=', purpose).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  },

  /** Deletes every access and refresh token issued through a client. */
  async deleteClientTokens(db: Db, clientId: string): Promise<void> {
    await db.deleteFrom('access_tokens').where('client_id', '=', clientId).execute();
    await db.deleteFrom('refresh_tokens').where('client_id', '=', clientId).execute();
  },

  /** Deletes every access and refresh token of a user, whatever client issued it; how many. */
  async deleteUserTokens(db: Db, userId: number): Promise<number> {
    const access = await db.deleteFrom('access_tokens').where('user_id', '=', userId).executeTakeFirst();
    const refresh = await db.deleteFrom('refresh_tokens').where('user_id', '=', userId).executeTakeFirst();
    return Number(access.numDeletedRows) + Number(refresh.numDeletedRows);
  },

  /** Forgets the failed log-ins counted under these keys. */
  async clearFailures(db: Db, keys: string[]): Promise<void> {
    if (keys.length > 0) await db.deleteFrom('login_failures').where('key', 'in', keys).execute();
  },

  /** Times of the most recent failures of a key since `since`, newest first. */
  async recentFailures(db: Db, key: string, since: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('login_failures')
      .select('at')
      .where('key', '=', key)
      .where('at', '>', since)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.at));
  },

  async recordFailures(db: Db, keys: string[], at: number, pruneBefore: number): Promise<void> {
    await db
      .insertInto('login_failures')
      .values(keys.map((key) => ({ key, at })))
      .execute();
    await db.deleteFrom('login_failures').where('key', 'in', keys).where('at', '<=', pruneBefore).execute();
  },
};

/**
 * The read model accounts exports to the repositories that show users beside their own rows (the
 * members list): each a table to join on its user id column, in the same statement. Reached through
 * the accounts service (`userReadModel`); its type is `UserReadModel` of mapper.ts.
 */
export const userReadModel = {
  /** What a list of people shows of each user, joined on `u_id`. */
  cards(db: Db) {
    return db
      .selectFrom('users')
      .select([
        'users.id as u_id',
        'users.name as u_name',
        'users.photo_uri as u_photo_uri',
        'users.created_at as u_created_at',
        'users.updated_at as u_updated_at',
        'users.phone_num as u_phone_num',
        'users.phone_num_status as u_phone_num_status',
        'users.email as u_email',
      ]);
  },
  /** When each user was last seen (no row: never), joined on `p_user_id`. */
  presence(db: Db) {
    return db.selectFrom('user_presence').select(['user_presence.user_id as p_user_id', 'user_presence.last_seen_at as u_last_seen_at']);
  },
};
