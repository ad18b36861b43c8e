import type { DatabaseHandle } from '../../db/index.ts';
import { projectReadModel } from '../projects/service.ts';
import type { AppRow } from '../projects/mapper.ts';
import type { MembershipRow, UserMembershipRow } from './mapper.ts';
import { projectMemberReads } from './repository.ts';

/**
 * What the members module tells other modules that are built before it, from the database alone:
 * the caller's membership in a project (access asks it for every project-scoped request), a
 * creator's Sales count (the accounts module's user object) and a user's projects (projects' my-apps).
 * Each is one statement over members joined to the projects module's read model.
 */
export function createMembersReadModel(database: DatabaseHandle) {
  const reads = projectMemberReads(projectReadModel);
  return {
    /** The project and the user's member record in it, or null when there is no such project (cached). */
    membership(appId: string, userId: number): Promise<MembershipRow | null> {
      return reads.membership(database, appId, userId);
    },

    /** Sales members across the live projects the user created. */
    salesCountOf(userId: number): Promise<number> {
      return reads.salesCount(database.reader, userId);
    },

    /** Live projects the user is an active member of, newest first, with the user's role in each. */
    projectsOf(userId: number): Promise<(AppRow & { role: string })[]> {
      return reads.projectsOf(database.db, userId);
    },

    /** The user's active memberships in live projects, newest first; `pending` narrows them (the members service's list). */
    membershipsOf(userId: number, pending: boolean | undefined): Promise<UserMembershipRow[]> {
      return reads.listForUser(database.db, userId, pending);
    },
  };
}

export type MembersReadModel = ReturnType<typeof createMembersReadModel>;
