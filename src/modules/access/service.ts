import { failure, forbidden, needAuth } from '../../http/errors.ts';
import type { MemberRow, MembershipRow } from '../members/mapper.ts';
import type { AppRow } from '../projects/mapper.ts';

export type Role = 'Master' | 'Admin' | 'Sales';

/** The caller's standing in one project, as every project-scoped endpoint learns it. */
export interface Membership {
  app: AppRow;
  member: MemberRow;
  role: Role;
  userId: number;
  /** Master or Admin: manages the project and sees every customer and every member's histories. */
  isManager: boolean;
}

/**
 * Who calls, in which project, with which role: what a service method takes first instead of id
 * strings. Routes get it from the auth hook (`actorOf(request)` in src/http/auth.ts); a service that
 * acts for a member without a request (a job, ingestion) gets it from `access.membership`.
 */
export type Actor = Membership;

/**
 * How a refusal is reported: `api` endpoints answer 403 forbidden; the history endpoints (calls,
 * links, view logs, posts) answer HTTP 200 `{status:0, code:"NEED_AUTH"}` (docs/interface.md §6).
 */
export type RefusalStyle = 'api' | 'history';

const refuse = (style: RefusalStyle, why: string) => (style === 'history' ? needAuth(why) : forbidden(why));

/** Roles from input: case-insensitive, `member` meaning Sales. */
export function parseRole(input: string): Role | null {
  const r = input.trim().toLowerCase();
  if (r === 'master') return 'Master';
  if (r === 'admin') return 'Admin';
  if (r === 'sales' || r === 'member') return 'Sales';
  return null;
}

/**
 * The project and the user's member record in it, or null when there is no such project: one cached
 * statement, the members module's read model (`MembersReadModel.membership`).
 */
export type MembershipReader = (appId: string, userId: number) => Promise<MembershipRow | null>;

/**
 * The one authorization module: every project-scoped endpoint asks it who the caller is in the
 * project, and it alone decides between app_not_found, 403 forbidden and NEED_AUTH.
 */
export function createAccessService(load: MembershipReader) {
  return {
    /** The caller's active membership, or the decided refusal. */
    async membership(appId: string, userId: number, style: RefusalStyle = 'api'): Promise<Membership> {
      const row = await load(appId, userId);
      if (!row || row.status !== 0) throw failure('app_not_found');
      if (row.m_id === null || row.m_status !== 0 || row.m_role === null) throw refuse(style, 'You are not a member of this project');
      const { m_id, m_status, m_role, m_conference_id, m_post_roles, m_create_time, m_edit_time, m_accepted_at, ...app } = row;
      const role = m_role as Role;
      return {
        app: app as AppRow,
        member: {
          id: m_id,
          app_id: appId,
          user_id: userId,
          status: m_status,
          role,
          conference_id: m_conference_id,
          post_roles: m_post_roles ?? '',
          create_time: m_create_time ?? 0,
          edit_time: m_edit_time ?? 0,
          accepted_at: m_accepted_at,
        },
        role,
        userId,
        isManager: role === 'Master' || role === 'Admin',
      };
    },

    /**
     * The user's member record in the live project, active or removed, or null when there is none;
     * `app_not_found` when there is no such live project. The user's own membership endpoints and
     * ingestion (the platform user ids a record names) ask it. Cached like `membership`.
     */
    async memberRecord(appId: string, userId: number): Promise<MemberRow | null> {
      const row = await load(appId, userId);
      if (!row || row.status !== 0) throw failure('app_not_found');
      if (row.m_id === null || row.m_status === null || row.m_role === null) return null;
      return {
        id: row.m_id,
        app_id: appId,
        user_id: userId,
        status: row.m_status,
        role: row.m_role,
        conference_id: row.m_conference_id,
        post_roles: row.m_post_roles ?? '',
        create_time: row.m_create_time ?? 0,
        edit_time: row.m_edit_time ?? 0,
        accepted_at: row.m_accepted_at,
      };
    },

    /** The creator (Master) of a live project, or null when there is no such project. Cached like `membership`. */
    async projectCreator(appId: string): Promise<number | null> {
      const row = await load(appId, 0);
      return row && row.status === 0 ? row.creator_id : null;
    },

    /** Membership with the Master or Admin role. */
    async manager(appId: string, userId: number, style: RefusalStyle = 'api'): Promise<Membership> {
      const m = await this.membership(appId, userId, style);
      if (!m.isManager) throw refuse(style, 'Only the project Master or an Admin may do this');
      return m;
    },

    /** Membership with the Master role. */
    requireMaster(m: Membership, what: string): void {
      if (m.role !== 'Master') throw forbidden(`Only the project Master may ${what}`);
    },

    /**
     * Whose records the caller may see: null for managers (everyone's), else only the caller's
     * own id. An explicit filter for another user by a Sales member is refused.
     */
    visibleOwner(m: Membership, requested: number | undefined, style: RefusalStyle = 'api'): number | null {
      if (m.isManager) return requested ?? null;
      if (requested !== undefined && requested !== m.userId) throw refuse(style, 'Sales members see only their own records');
      return m.userId;
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
