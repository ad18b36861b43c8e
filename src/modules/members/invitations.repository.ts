import type { Kysely } from 'kysely';
import { type Database, crossProject } from '../../db/index.ts';
import type { InvitationRow } from './mapper.ts';

type Db = Kysely<Database>;

/** The SQL of invitations (docs/projects.md, "Invitations"): every statement but the token's names the project. */
export const invitationsRepository = {
  /**
   * The invitation a link's token names, whatever its project or state: the public accept page knows
   * nothing else. The row found names the project every later statement uses.
   */
  findByToken(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
    return db
      .selectFrom('invitations')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .modifyEnd(crossProject('invitation-token'))
      .executeTakeFirst();
  },

  findById(db: Db, appId: string, id: string): Promise<InvitationRow | undefined> {
    return db.selectFrom('invitations').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** The project's open invitation of this address (not accepted, not revoked; expired or not), newest first. */
  findOpenByEmail(db: Db, appId: string, emailLower: string): Promise<InvitationRow | undefined> {
    return db
      .selectFrom('invitations')
      .selectAll()
      .where('app_id', '=', appId)
      .where('email_lower', '=', emailLower)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
  },

  /** The project's pending invitations (not accepted, not revoked, not expired), newest first, at most `limit`. */
  listPending(db: Db, appId: string, now: number, limit: number): Promise<InvitationRow[]> {
    return db
      .selectFrom('invitations')
      .selectAll()
      .where('app_id', '=', appId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('sent_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  },

  /** How many links the project made (created or resent) since `since`: the project's daily budget of invitation mail. */
  async sentSince(db: Db, appId: string, since: number): Promise<number> {
    const row = await db
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('sent_at', '>', since)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async insert(db: Db, row: InvitationRow): Promise<void> {
    await db.insertInto('invitations').values(row).execute();
  },

  /** A new link (token, expiry, role) for an open invitation; undefined when it was accepted or revoked meanwhile. */
  renew(db: Db, appId: string, id: string, patch: Pick<InvitationRow, 'token_hash' | 'sent_at' | 'expires_at' | 'role'>) {
    return db
      .updateTable('invitations')
      .set(patch)
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /** Revokes an open invitation; false when it was not open. */
  async revoke(db: Db, appId: string, id: string, now: number): Promise<boolean> {
    const rows = await db
      .updateTable('invitations')
      .set({ revoked_at: now })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
    return rows.length > 0;
  },

  /**
   * Uses a live invitation once: of two accepts at once, exactly one gets the row back (the other's
   * update finds it accepted). Undefined when it is used, revoked or expired.
   */
  claim(db: Db, appId: string, id: string, claim: { now: number; userId: number }): Promise<InvitationRow | undefined> {
    return db
      .updateTable('invitations')
      .set({ accepted_at: claim.now, accepted_by: claim.userId })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', claim.now)
      .returningAll()
      .executeTakeFirst();
  },
};
