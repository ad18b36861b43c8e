import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type Database, isUniqueViolation } from '../../db/index.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { type AccessService, type Role, parseRole } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { AuditAction, AuditRecorder } from '../audit/service.ts';
import { type MemberListItem, type MemberResponse, type UserMembership, toMember, toMemberListItem, toUserMembership } from './mapper.ts';
import { membersRepository as repo } from './repository.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';

export interface AddMemberInput {
  svc_user_id?: number | undefined;
  role?: string | undefined;
  post_roles?: string | undefined;
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

/** Project members (sales people): add, list, remove — docs/interface.md §6. */
export function createMembersService(ctx: AppContext, access: AccessService, accounts: AccountsService, audit: AuditRecorder) {
  const db = ctx.database.db;
  const clock = ctx.clock;

  /** A change of a membership and its audit entry, in one transaction. */
  function memberChange<T>(
    appId: string,
    actorId: number,
    action: AuditAction,
    userId: number,
    detail: Record<string, unknown> | undefined,
    write: (trx: Kysely<Database>) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const result = await write(trx);
      await audit(trx, { appId, actorId, action, targetType: 'member', targetId: String(userId), ...(detail ? { detail } : {}) });
      return result;
    });
  }

  return {
    /** Adds a platform user; adding an existing active member changes nothing. */
    async add(appId: string, callerId: number, input: AddMemberInput): Promise<MemberResponse> {
      const m = await access.manager(appId, callerId);
      if (input.svc_user_id === undefined) throw failure('Bad Request', "Missing required parameter 'svc_user_id'");
      let role: Role = 'Sales';
      if (input.role !== undefined && input.role !== '') {
        const parsed = parseRole(input.role);
        if (parsed === null || parsed === 'Master') throw failure('role_invalid');
        role = parsed;
      }
      if (role === 'Admin') access.requireMaster(m, 'make an Admin');
      const postRoles = parsePostRoles(input.post_roles);
      const user = await accounts.userById(input.svc_user_id);
      if (!user) throw failure('user_not_found', 'No platform user with that id');
      const existing = await repo.findByUser(db, appId, user.id);
      const now = clock.now();
      if (existing && existing.status === 0) return toMember(existing, clock);
      if (existing) {
        // Added again by someone else: pending again until the user accepts.
        const revived = await memberChange(appId, callerId, 'member.readd', user.id, { role, postRoles }, async (trx) => {
          const r = await repo.update(trx, appId, existing.id, {
            status: 0,
            role,
            post_roles: postRoles,
            edit_time: now,
            accepted_at: null,
          });
          if (!r) throw failure('member_not_found');
          return r;
        });
        return toMember(revived, clock);
      }
      const row = {
        id: timeOrderedUuid(),
        app_id: appId,
        user_id: user.id,
        conference_id: null,
        status: 0,
        role,
        post_roles: postRoles,
        create_time: now,
        edit_time: now,
        // Added by someone else: pending until the user accepts (docs/projects.md).
        accepted_at: null,
      };
      try {
        await memberChange(appId, callerId, 'member.add', user.id, { role, postRoles }, (trx) => repo.insert(trx, row));
      } catch (err) {
        // A concurrent add of the same user: the first one wins and this is a no-op.
        if (!isUniqueViolation(err)) throw err;
        const winner = await repo.findByUser(db, appId, user.id);
        if (winner) return toMember(winner, clock);
        throw err;
      }
      return toMember(row, clock);
    },

    /** Removes by member record id or platform user id. The creator cannot be removed. */
    async remove(appId: string, callerId: number, ref: string): Promise<true> {
      const m = await access.manager(appId, callerId);
      const target = await repo.findByIdOrUser(db, appId, ref);
      if (!target || target.status !== 0) throw failure('member_not_found', 'No such member in this project');
      if (target.user_id === m.app.creator_id) throw failure('cannot_remove_owner');
      if (target.role === 'Admin' && m.role !== 'Master') throw forbidden('Only the project Master may remove an Admin');
      await memberChange(appId, callerId, 'member.remove', target.user_id, { role: target.role }, (trx) =>
        repo.update(trx, appId, target.id, { status: 1, edit_time: clock.now() }),
      );
      return true;
    },

    /** The caller's own active memberships in live projects: all, only pending, or only accepted ones. */
    async memberships(userId: number, state: 'pending' | 'accepted' | undefined): Promise<UserMembership[]> {
      const rows = await repo.listForUser(db, userId, state === undefined ? undefined : state === 'pending');
      return rows.map((r) => toUserMembership(r, clock));
    },

    /** The caller accepts a membership someone else made; accepting twice changes nothing. */
    async accept(userId: number, appId: string): Promise<MemberResponse> {
      const own = await access.memberRecord(appId, userId);
      if (!own || own.status !== 0) throw failure('member_not_found', 'You are not a member of this project');
      if (own.accepted_at !== null) return toMember(own, clock);
      const now = clock.now();
      const accepted = await db.transaction().execute(async (trx) => {
        const a = await repo.acceptIfPending(trx, appId, own.id, now);
        if (a) await audit(trx, { appId, actorId: userId, action: 'member.accept', targetType: 'member', targetId: String(userId) });
        return a;
      });
      const row = accepted ?? (await repo.findByUser(db, appId, userId));
      if (!row || row.status !== 0) throw failure('member_not_found', 'You are not a member of this project');
      return toMember(row, clock);
    },

    /** The caller leaves a project (a pending membership is declined the same way). The creator cannot leave. */
    async leave(userId: number, appId: string): Promise<true> {
      const own = await access.memberRecord(appId, userId);
      if (!own || own.status !== 0) throw failure('member_not_found', 'You are not a member of this project');
      if (own.role === 'Master') throw failure('cannot_remove_owner', 'The project creator cannot leave the project');
      await memberChange(appId, userId, 'member.leave', userId, { role: own.role }, (trx) =>
        repo.update(trx, appId, own.id, { status: 1, edit_time: clock.now() }),
      );
      return true;
    },

    /** Whether the user is an active member of the project (inside the caller's transaction, if any). */
    isActiveMember(executor: Kysely<Database>, appId: string, userId: number): Promise<boolean> {
      return repo.isActive(executor, appId, userId);
    },

    async list(appId: string, callerId: number, keyword: string | undefined, p: Page): Promise<MemberListItem[]> {
      const m = await access.membership(appId, callerId);
      const rows = await repo.list(db, appId, keyword?.trim(), p.offset, p.limit);
      return rows.map((r) => toMemberListItem(r, m.app.creator_id, clock));
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
