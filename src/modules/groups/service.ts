import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { AccessService, Actor, Membership } from '../access/service.ts';
import type { MembersService } from '../members/service.ts';
import { type GroupRow, groupsRepository as repo } from './repository.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';

export interface GroupResponse {
  id: string;
  name: string;
  customerCount: number;
  createdAt: string;
}

/**
 * Live customers in each of these groups of the project (a group without any left out): the customers
 * module's count, given when the groups service is built.
 */
export type LiveCustomerCounts = (appId: string, groupIds: string[]) => Promise<Map<string, number>>;

/** What the create endpoint takes. */
export interface GroupInput {
  name?: string | undefined;
  svc_user_id?: number | undefined;
}

/** Customer groups: each belongs to one member of one project (docs/interface.md §9). */
export function createGroupsService(ctx: AppContext, access: AccessService, members: MembersService, customerCounts: LiveCustomerCounts) {
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;
  const clock = ctx.clock;
  return {
    /** The groups the actor may see (a member's: `svcUserId`, or for Master/Admin without it all), with their live customers counted. */
    async list(actor: Actor, input: { svcUserId: number | undefined }): Promise<GroupResponse[]> {
      const appId = actor.app.id;
      const owner = access.visibleOwner(actor, input.svcUserId);
      const rows = await repo.list(db, appId, owner);
      const counts =
        rows.length === 0
          ? new Map<string, number>()
          : await customerCounts(
              appId,
              rows.map((r) => r.id),
            );
      return rows.map((r) => ({ id: r.id, name: r.name, customerCount: counts.get(r.id) ?? 0, createdAt: clock.format(r.created_at) }));
    },

    async create(actor: Actor, input: GroupInput): Promise<GroupResponse> {
      const appId = actor.app.id;
      const owner = input.svc_user_id ?? actor.userId;
      if (owner !== actor.userId && !actor.isManager) throw forbidden('Sales members create groups only for themselves');
      const name = input.name?.trim() ?? '';
      if (name === '') throw failure('name_required');
      if (name.length > 64) throw failure('name_invalid', 'name must be at most 64 characters');
      if (!(await members.isActiveMember(db, appId, owner)))
        throw failure('svc_user_id_invalid', 'svc_user_id is not a member of this project');
      const row: GroupRow = { id: timeOrderedUuid(), app_id: appId, owner_id: owner, name, created_at: clock.now() };
      await repo.insert(db, row);
      return { id: row.id, name, customerCount: 0, createdAt: clock.format(row.created_at) };
    },

    /** A group the caller may use, or group_not_found (the same answer for missing and invisible). */
    async visible(executor: Kysely<Database>, m: Membership, groupId: string): Promise<GroupRow> {
      const g = await repo.find(executor, m.app.id, groupId);
      if (!g || (!m.isManager && g.owner_id !== m.userId)) throw failure('group_not_found');
      return g;
    },

    /** The member a group of the project belongs to; undefined when the project has no such group. */
    async ownerOf(executor: Kysely<Database>, appId: string, groupId: string): Promise<number | undefined> {
      return (await repo.find(executor, appId, groupId))?.owner_id;
    },

    /** Names of the project's groups by id, as committed (customer lists show them). */
    names(appId: string, ids: string[]): Promise<Map<string, string>> {
      return repo.names(reader, appId, ids);
    },
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
