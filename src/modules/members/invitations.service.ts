import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { AppError, failure, oauthError, rateLimited } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { randomToken, sha256 } from '../../lib/secrets.ts';
import { type AccessService, type Actor, type Role, parseRole } from '../access/service.ts';
import type { AccountsService, TokenResponse } from '../accounts/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { InvitationMailer } from './invitation-mail.ts';
import {
  type InvitationIssued,
  type InvitationListItem,
  type InvitationRow,
  type MemberResponse,
  type MemberRow,
  toInvitationIssued,
  toInvitationListItem,
  toMember,
} from './mapper.ts';
import type { MembersReadModel } from './read-model.service.ts';
import { invitationsRepository as invitations } from './invitations.repository.ts';
import { membersRepository as members } from './repository.ts';

/** How long an invitation's link works (docs/projects.md, "Invitations"). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Links (invitations created or resent) a project may make in a day, whatever the per-minute budget. */
export const INVITATIONS_PER_DAY = 100;
/** The pending invitations the members page lists, at most. */
const PENDING_LISTED = 200;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface InviteInput {
  email?: string | undefined;
  role?: string | undefined;
}

/** What someone holding a link learns of it before accepting. */
export interface InvitationPreview {
  projectName: string;
  inviterName: string;
  email: string;
  role: string;
  expiresAt: string;
}

export interface InvitationsDeps {
  access: AccessService;
  accounts: Pick<AccountsService, 'userById' | 'consoleSignUpInvited'>;
  audit: AuditRecorder;
  reads: MembersReadModel;
  mailer: InvitationMailer;
}

/**
 * The one answer for every token that does not lead to a live invitation (unknown, expired, revoked,
 * used): holding a link tells nothing about any other.
 */
const notFound = () => failure('invitation_not_found');

/** The role an invitation asks for (Sales when none); only the Master invites an Admin, nobody a Master. */
function invitedRole(actor: Actor, access: AccessService, raw: string | undefined): Role {
  if (raw === undefined || raw.trim() === '') return 'Sales';
  const role = parseRole(raw);
  if (role === null || role === 'Master') throw failure('role_invalid');
  if (role === 'Admin') access.requireMaster(actor, 'invite an Admin');
  return role;
}

function invitedEmail(raw: string | undefined): string {
  const email = raw?.trim() ?? '';
  if (email === '') throw failure('Bad Request', "Missing required parameter 'email'");
  if (email.length > 254 || !isEmail(email)) throw failure('email_invalid');
  return email;
}

/**
 * Invitations to join a project by e-mail (docs/projects.md, "Invitations"; ADR 0036): made, listed,
 * resent and revoked by the project's Master and Admins; looked up and accepted by whoever holds the
 * link, signed in (joins with their account) or not (makes the account, even with sign-up closed).
 */
export function createInvitationsService(ctx: AppContext, deps: InvitationsDeps) {
  const { access, accounts, audit, reads, mailer } = deps;
  const db = ctx.database.db;
  const clock = ctx.clock;
  const urlOf = (token: string) => `${ctx.config.publicBaseUrl}/console/invite/${token}`;

  /** A new link: the token (answered once, never stored) and what is stored of it. */
  function newLink(): { token: string; token_hash: string; sent_at: number; expires_at: number } {
    const token = randomToken(32);
    const now = clock.now();
    return { token, token_hash: sha256(token), sent_at: now, expires_at: now + INVITATION_TTL_MS };
  }

  /** rate_limited when the project made its day's links already. */
  async function withinDailyBudget(appId: string): Promise<void> {
    if ((await invitations.sentSince(db, appId, clock.now() - DAY_MS)) >= INVITATIONS_PER_DAY) {
      throw rateLimited(3600, `A project makes at most ${INVITATIONS_PER_DAY} invitations a day; try again later`);
    }
  }

  /** Mails the link after the answer when SMTP is set: a mail that fails leaves the link to be copied. */
  async function mail(actor: Actor, row: InvitationRow, url: string): Promise<void> {
    if (!mailer.enabled) return;
    const inviter = await accounts.userById(actor.userId);
    const inviterName = inviter?.name ?? inviter?.email ?? inviter?.phone_num ?? 'A colleague';
    const message = {
      to: row.email,
      projectName: actor.app.name,
      inviterName,
      role: row.role,
      url,
      expiresAt: clock.format(row.expires_at),
    };
    void mailer.send(message);
  }

  /** The live invitation of a token, or invitation_not_found. */
  async function live(token: string | undefined): Promise<InvitationRow> {
    if (token === undefined || token.length < 16 || token.length > 128) throw notFound();
    const row = await invitations.findByToken(db, sha256(token));
    if (!row || row.accepted_at !== null || row.revoked_at !== null || row.expires_at <= clock.now()) throw notFound();
    return row;
  }

  /**
   * In the caller's transaction: uses the invitation once (invitation_not_found when another accept
   * won, or it was revoked or expired meanwhile) and makes the user a member with its role, accepted
   * at once: accepting the invitation is their consent (ADR 0016). A member already keeps their role.
   */
  async function join(trx: Kysely<Database>, invitation: InvitationRow, userId: number): Promise<MemberRow> {
    const now = clock.now();
    const { app_id: appId } = invitation;
    const used = await invitations.claim(trx, appId, invitation.id, { now, userId });
    if (!used) throw notFound();
    const existing = await members.findByUser(trx, appId, userId);
    const detail = { role: invitation.role, invitation: invitation.id };
    await audit(trx, { appId, actorId: userId, action: 'member.join', targetType: 'member', targetId: String(userId), detail });
    if (existing && existing.status === 0) {
      if (existing.accepted_at !== null) return existing;
      return (await members.acceptIfPending(trx, appId, existing.id, now)) ?? existing;
    }
    const role = invitation.role;
    if (existing) {
      const patch = { status: 0, role, post_roles: 'SalesPost', edit_time: now, accepted_at: now };
      const revived = await members.update(trx, appId, existing.id, patch);
      if (revived) return revived;
    }
    const row: MemberRow = {
      id: timeOrderedUuid(),
      app_id: appId,
      user_id: userId,
      conference_id: null,
      status: 0,
      role,
      post_roles: 'SalesPost',
      create_time: now,
      edit_time: now,
      accepted_at: now,
    };
    await members.insert(trx, row);
    return row;
  }

  return {
    /**
     * Invites an address (the actor is a manager): a pending invitation of the same address is renewed
     * (a new link, role and expiry) rather than doubled. The link is answered this once, and mailed
     * when SMTP is set.
     */
    async create(actor: Actor, input: InviteInput): Promise<InvitationIssued> {
      const email = invitedEmail(input.email);
      const role = invitedRole(actor, access, input.role);
      const appId = actor.app.id;
      await withinDailyBudget(appId);
      const link = newLink();
      const { token, ...stored } = link;
      const open = await invitations.findOpenByEmail(db, appId, email.toLowerCase());
      const row = await db.transaction().execute(async (trx) => {
        const renewed = open ? await invitations.renew(trx, appId, open.id, { ...stored, role }) : undefined;
        const made: InvitationRow = renewed ?? {
          id: timeOrderedUuid(),
          app_id: appId,
          email,
          email_lower: email.toLowerCase(),
          role,
          invited_by: actor.userId,
          created_at: stored.sent_at,
          accepted_at: null,
          accepted_by: null,
          revoked_at: null,
          ...stored,
        };
        if (!renewed) await invitations.insert(trx, made);
        const detail = { email, role };
        await audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'invitation.create',
          targetType: 'invitation',
          targetId: made.id,
          detail,
        });
        return made;
      });
      const url = urlOf(token);
      await mail(actor, row, url);
      return toInvitationIssued(row, url, clock);
    },

    /** The project's pending invitations (not accepted, revoked or expired), newest first; never their links. */
    async list(actor: Actor): Promise<InvitationListItem[]> {
      const rows = await invitations.listPending(db, actor.app.id, clock.now(), PENDING_LISTED);
      return rows.map((r) => toInvitationListItem(r, clock));
    },

    /** A new link and expiry for a pending (or expired) invitation of the project, mailed again; the old link stops working. */
    async resend(actor: Actor, input: { id: string }): Promise<InvitationIssued> {
      const appId = actor.app.id;
      const open = await invitations.findById(db, appId, input.id);
      if (!open || open.accepted_at !== null || open.revoked_at !== null) throw failure('invitation_not_found');
      if (open.role === 'Admin') access.requireMaster(actor, 'resend an invitation as Admin');
      await withinDailyBudget(appId);
      const { token, ...stored } = newLink();
      const row = await db.transaction().execute(async (trx) => {
        const renewed = await invitations.renew(trx, appId, open.id, { ...stored, role: open.role });
        if (!renewed) throw failure('invitation_not_found');
        const detail = { email: renewed.email };
        await audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'invitation.resend',
          targetType: 'invitation',
          targetId: renewed.id,
          detail,
        });
        return renewed;
      });
      const url = urlOf(token);
      await mail(actor, row, url);
      return toInvitationIssued(row, url, clock);
    },

    /** Revokes a pending invitation of the project: its link stops working. */
    async revoke(actor: Actor, input: { id: string }): Promise<true> {
      const appId = actor.app.id;
      const open = await invitations.findById(db, appId, input.id);
      if (!open || open.accepted_at !== null || open.revoked_at !== null) throw failure('invitation_not_found');
      if (open.role === 'Admin') access.requireMaster(actor, 'revoke an invitation as Admin');
      await db.transaction().execute(async (trx) => {
        if (!(await invitations.revoke(trx, appId, open.id, clock.now()))) throw failure('invitation_not_found');
        const detail = { email: open.email };
        await audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'invitation.revoke',
          targetType: 'invitation',
          targetId: open.id,
          detail,
        });
      });
      return true;
    },

    /** What the holder of a live link sees before accepting: the project, who invites, the address and role. */
    async preview(token: string | undefined): Promise<InvitationPreview> {
      const row = await live(token);
      const project = await reads.membership(row.app_id, 0);
      if (!project || project.status !== 0) throw notFound();
      const inviter = await accounts.userById(row.invited_by);
      const inviterName = inviter?.name ?? inviter?.email ?? 'A colleague';
      return { projectName: project.name, inviterName, email: row.email, role: row.role, expiresAt: clock.format(row.expires_at) };
    },

    /** The signed-in user accepts a live invitation: they join its project with its role, at once. */
    async accept(userId: number, input: { token: string | undefined }): Promise<MemberResponse> {
      const row = await live(input.token);
      if ((await access.projectCreator(row.app_id)) === null) throw notFound();
      const member = await db.transaction().execute((trx) => join(trx, row, userId));
      return toMember(member, clock);
    },

    /**
     * Someone without an account accepts a live invitation: the account of the invited address is
     * made (sign-up closed or not), joins the project, and is signed in to the console.
     */
    async signUp(input: { token?: string | undefined; nickname?: string | undefined; password?: string | undefined }) {
      const invitation = await live(input.token).catch(() => {
        throw oauthError('invitation_not_found', 'The invitation link is not valid: it expired, was revoked or was used');
      });
      if ((await access.projectCreator(invitation.app_id)) === null) {
        throw oauthError('invitation_not_found', 'The invitation link is not valid: it expired, was revoked or was used');
      }
      const fields = { email: invitation.email, nickname: input.nickname, password: input.password };
      const invalid = () => oauthError('invitation_not_found', 'The invitation link is not valid: it expired, was revoked or was used');
      try {
        const { tokens, joined } = await accounts.consoleSignUpInvited(fields, (trx, userId) => join(trx, invitation, userId));
        return { tokens: tokens as TokenResponse, appId: joined.app_id };
      } catch (err) {
        // Another accept of the same link won: that one made the account, this one made nothing.
        if (err instanceof AppError && err.code === 'invitation_not_found') throw invalid();
        throw err;
      }
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
