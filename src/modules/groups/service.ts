import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { MembersService } from '../members/service.ts';
import { type GroupRow, groupsRepository as repo } from './repository.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';

export interface GroupResponse {
  id: string;
  name: string;
  customerCount: number;
  createdAt: string;
}

/** Customer groups: each belongs to one member of one project (docs/interface.md §9). */
export function createGroupsService(ctx: AppContext, access: AccessService, members: MembersService) {
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;
  const clock = ctx.clock;
  return {
    async list(appId: string, callerId: number, svcUserId: number | undefined): Promise<GroupResponse[]> {
      const m = await access.membership(appId, callerId);
      const owner = access.visibleOwner(m, svcUserId);
      const rows = await repo.list(db, appId, owner);
      return rows.map((r) => ({ id: r.id, name: r.name, customerCount: Number(r.customer_count), createdAt: clock.format(r.created_at) }));
    },

    async create(
      appId: string,
      callerId: number,
      input: { name?: string | undefined; svc_user_id?: number | undefined },
    ): Promise<GroupResponse> {
      const m = await access.membership(appId, callerId);
      const owner = input.svc_user_id ?? callerId;
      if (owner !== callerId && !m.isManager) throw forbidden('Sales members create groups only for themselves');
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
