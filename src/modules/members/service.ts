import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type Database, isUniqueViolation } from '../../db/index.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { type AccessService, type Actor, type Role, parseRole } from '../access/service.ts';
import { type AccountsService, userReadModel } from '../accounts/service.ts';
import type { AuditAction, AuditRecorder } from '../audit/service.ts';
import {
  type MemberListItem,
  type MemberResponse,
  type MemberRow,
  type UserMembership,
  toMember,
  toMemberListItem,
  toUserMembership,
} from './mapper.ts';
import type { MembersReadModel } from './read-model.service.ts';
import { membersRepository as repo } from './repository.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { createInvitationMailer } from './invitation-mail.ts';
import { createInvitationsService } from './invitations.service.ts';

export { type MembersReadModel, createMembersReadModel } from './read-model.service.ts';
export type { InvitationsService } from './invitations.service.ts';
export type { MembershipRow } from './mapper.ts';

export interface AddMemberInput {
  svc_user_id?: number | undefined;
  role?: string | undefined;
  post_roles?: string | undefined;
}

export interface MembersDeps {
  access: AccessService;
  accounts: Pick<AccountsService, 'userById' | 'consoleSignUpInvited'>;
  audit: AuditRecorder;
  reads: MembersReadModel;
}

/** A change of a membership, as the audit log records it. */
interface MemberChange {
  appId: string;
  actorId: number;
  action: AuditAction;
  userId: number;
  detail?: Record<string, unknown>;
}

const POSTS = ['MarketPost', 'SalesPost'] as const;

/** `post_roles` as stored (comma-separated, in a fixed order), from "A,B" or a JSON array; SalesPost when absent. */
function parsePostRoles(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return 'SalesPost';
  let values: unknown;
  try {
    values = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',');
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length === 0) throw failure('post_roles_invalid');
  const posts = new Set<string>();
  for (const v of values) {
    const post = POSTS.find((p) => typeof v === 'string' && p.toLowerCase() === v.trim().toLowerCase());
    if (post === undefined) throw failure('post_roles_invalid');
    posts.add(post);
  }
  return POSTS.filter((p) => posts.has(p)).join(',');
}

/** The role an add asks for (Sales when none); only the Master makes an Admin, nobody a Master. */
function addedRole(actor: Actor, access: AccessService, input: AddMemberInput): Role {
  if (input.role === undefined || input.role === '') return 'Sales';
  const role = parseRole(input.role);
  if (role === null || role === 'Master') throw failure('role_invalid');
  if (role === 'Admin') access.requireMaster(actor, 'make an Admin');
  return role;
}

const notAMember = () => failure('member_not_found', 'You are not a member of this project');

/**
 * Project members (sales people): add, list, remove — docs/interface.md §6 — for a project's
 * managers and members (an actor the auth hook resolved), and the user's own memberships.
 */
export function createMembersService(ctx: AppContext, deps: MembersDeps) {
  const { access, accounts, audit, reads } = deps;
  const db = ctx.database.db;
  const clock = ctx.clock;

  /** A change of a membership and its audit entry, in one transaction. */
  function memberChange<T>(change: MemberChange, write: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    const { appId, actorId, action, userId, detail } = change;
    return db.transaction().execute(async (trx) => {
      const result = await write(trx);
      await audit(trx, { appId, actorId, action, targetType: 'member', targetId: String(userId), ...(detail ? { detail } : {}) });
      return result;
    });
  }

  /** Adds the member record of a user who has none in the project (pending until they accept). */
  async function addNew(actor: Actor, userId: number, detail: { role: Role; postRoles: string }): Promise<MemberResponse> {
    const appId = actor.app.id;
    const now = clock.now();
    const row: MemberRow = {
      id: timeOrderedUuid(),
      app_id: appId,
      user_id: userId,
      conference_id: null,
      status: 0,
      role: detail.role,
      post_roles: detail.postRoles,
      create_time: now,
      edit_time: now,
      // Added by someone else: pending until the user accepts (docs/projects.md).
      accepted_at: null,
    };
    try {
      await memberChange({ appId, actorId: actor.userId, action: 'member.add', userId, detail }, (trx) => repo.insert(trx, row));
    } catch (err) {
      // A concurrent add of the same user: the first one wins and this is a no-op.
      if (!isUniqueViolation(err)) throw err;
      const winner = await repo.findByUser(db, appId, userId);
      if (winner) return toMember(winner, clock);
      throw err;
    }
    return toMember(row, clock);
  }

  // Invitations by e-mail: the members page's, and the link holder's (invitations.service.ts).
  const mailer = createInvitationMailer(ctx.config.smtpUrl, ctx.config.smtpFrom, ctx.logger);
  const invitations = createInvitationsService(ctx, { access, accounts, audit, reads, mailer });

  return {
    invitations,

    /** Adds a platform user (the actor is a manager); adding an existing active member changes nothing. */
    async add(actor: Actor, input: AddMemberInput): Promise<MemberResponse> {
      if (input.svc_user_id === undefined) throw failure('Bad Request', "Missing required parameter 'svc_user_id'");
      const role = addedRole(actor, access, input);
      const postRoles = parsePostRoles(input.post_roles);
      const user = await accounts.userById(input.svc_user_id);
      if (!user) throw failure('user_not_found', 'No platform user with that id');
      const appId = actor.app.id;
      const existing = await repo.findByUser(db, appId, user.id);
      if (existing && existing.status === 0) return toMember(existing, clock);
      if (!existing) return addNew(actor, user.id, { role, postRoles });
      // Added again by someone else: pending again until the user accepts.
      const change = { appId, actorId: actor.userId, action: 'member.readd' as const, userId: user.id, detail: { role, postRoles } };
      const revived = await memberChange(change, async (trx) => {
        const patch = { status: 0, role, post_roles: postRoles, edit_time: clock.now(), accepted_at: null };
        const r = await repo.update(trx, appId, existing.id, patch);
        if (!r) throw failure('member_not_found');
        return r;
      });
      return toMember(revived, clock);
    },

    /** Removes by member record id or platform user id (the actor is a manager). The creator cannot be removed. */
    async remove(actor: Actor, input: { ref: string }): Promise<true> {
      const appId = actor.app.id;
      const target = await repo.findByIdOrUser(db, appId, input.ref);
      if (!target || target.status !== 0) throw failure('member_not_found', 'No such member in this project');
      if (target.user_id === actor.app.creator_id) throw failure('cannot_remove_owner');
      if (target.role === 'Admin' && actor.role !== 'Master') throw forbidden('Only the project Master may remove an Admin');
      const change = {
        appId,
        actorId: actor.userId,
        action: 'member.remove' as const,
        userId: target.user_id,
        detail: { role: target.role },
      };
      await memberChange(change, (trx) => repo.update(trx, appId, target.id, { status: 1, edit_time: clock.now() }));
      return true;
    },

    /** The project's active members by join time, optionally matching a keyword. */
    async list(actor: Actor, input: { keyword: string | undefined; page: Page }): Promise<MemberListItem[]> {
      const query = { appId: actor.app.id, keyword: input.keyword?.trim(), offset: input.page.offset, limit: input.page.limit };
      const rows = await repo.list(db, userReadModel, query);
      return rows.map((r) => toMemberListItem(r, actor.app.creator_id, clock));
    },

    /** The caller's own active memberships in live projects: all, only pending, or only accepted ones. */
    async memberships(userId: number, input: { state: 'pending' | 'accepted' | undefined }): Promise<UserMembership[]> {
      const rows = await reads.membershipsOf(userId, input.state === undefined ? undefined : input.state === 'pending');
      return rows.map((r) => toUserMembership(r, clock));
    },

    /** The caller accepts a membership someone else made; accepting twice changes nothing. */
    async accept(userId: number, input: { appId: string }): Promise<MemberResponse> {
      const { appId } = input;
      const own = await access.memberRecord(appId, userId);
      if (!own || own.status !== 0) throw notAMember();
      if (own.accepted_at !== null) return toMember(own, clock);
      const now = clock.now();
      const accepted = await db.transaction().execute(async (trx) => {
        const a = await repo.acceptIfPending(trx, appId, own.id, now);
        if (a) await audit(trx, { appId, actorId: userId, action: 'member.accept', targetType: 'member', targetId: String(userId) });
        return a;
      });
      const row = accepted ?? (await repo.findByUser(db, appId, userId));
      if (!row || row.status !== 0) throw notAMember();
      return toMember(row, clock);
    },

    /** The caller leaves a project (a pending membership is declined the same way). The creator cannot leave. */
    async leave(userId: number, input: { appId: string }): Promise<true> {
      const { appId } = input;
      const own = await access.memberRecord(appId, userId);
      if (!own || own.status !== 0) throw notAMember();
      if (own.role === 'Master') throw failure('cannot_remove_owner', 'The project creator cannot leave the project');
      const change = { appId, actorId: userId, action: 'member.leave' as const, userId, detail: { role: own.role } };
      await memberChange(change, (trx) => repo.update(trx, appId, own.id, { status: 1, edit_time: clock.now() }));
      return true;
    },

    /** Whether the user is an active member of the project (inside the caller's transaction, if any). */
    isActiveMember(executor: Kysely<Database>, appId: string, userId: number): Promise<boolean> {
      return repo.isActive(executor, appId, userId);
    },

    /**
     * Writes a new project's first member, its creator, as its Master (no acceptance needed: they made
     * it), in the transaction that creates the project (the projects service's).
     */
    async addCreator(trx: Kysely<Database>, input: { appId: string; userId: number; now: number }): Promise<void> {
      await repo.insert(trx, {
        id: timeOrderedUuid(),
        app_id: input.appId,
        user_id: input.userId,
        conference_id: null,
        status: 0,
        role: 'Master',
        post_roles: 'MarketPost,SalesPost',
        create_time: input.now,
        edit_time: input.now,
        accepted_at: input.now,
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
