import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure } from '../../http/errors.ts';
import { randomToken, safeEqual } from '../../lib/secrets.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { AccessService } from '../access/service.ts';
import { type AppRow, type ProjectResponse, toProject } from './mapper.ts';
import { projectsRepository as repo } from './repository.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';

/** Work other modules do inside the transaction that creates a project (e.g. default metadata). */
export type ProjectCreatedHook = (trx: Transaction<Database>, app: AppRow) => Promise<void>;

export interface ProjectInput {
  svc_user_id?: number | undefined;
  name?: string | undefined;
  description?: string | undefined;
  /** 1: Sales members may export their customers; 0: they may not (docs/data-operations.md). */
  sales_export?: number | undefined;
}

const NAME_MAX = 100;
const DESCRIPTION_MAX = 2000;

function validName(name: string | undefined, required: boolean): string | undefined {
  if (name === undefined || name.trim() === '') {
    if (required) throw failure('name_required');
    return undefined;
  }
  if (name.trim().length > NAME_MAX) throw failure('name_invalid', `name must be at most ${NAME_MAX} characters`);
  return name.trim();
}

function validDescription(description: string | undefined): string | undefined {
  if (description !== undefined && description.length > DESCRIPTION_MAX) {
    throw failure('description_invalid', `description must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}

function checkActingUser(input: ProjectInput, callerId: number): void {
  if (input.svc_user_id !== undefined && input.svc_user_id !== callerId) {
    throw failure('svc_user_id_invalid', 'svc_user_id must be the calling user');
  }
}

export function createProjectsService(ctx: AppContext, access: AccessService, hooks: readonly ProjectCreatedHook[], audit: AuditRecorder) {
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;
  return {
    /** Creates a project; its creator becomes its Master member, in one transaction. */
    async create(callerId: number, input: ProjectInput): Promise<{ appId: string; name: string; description: string | null }> {
      checkActingUser(input, callerId);
      const name = validName(input.name, true) as string;
      const description = validDescription(input.description) ?? null;
      const now = clock.now();
      const app: AppRow = {
        id: timeOrderedUuid(),
        creator_id: callerId,
        name,
        type: null,
        description,
        icon_url: null,
        icon_width: null,
        icon_height: null,
        ios_bundle_id: null,
        android_package_name: null,
        conference_id: null,
        secret: randomToken(24),
        status: 0,
        redirect_uri: null,
        create_time: now,
        edit_time: now,
        sales_export: 1,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insertApp(trx, app);
        await repo.insertMember(trx, {
          id: timeOrderedUuid(),
          app_id: app.id,
          user_id: callerId,
          conference_id: null,
          status: 0,
          role: 'Master',
          post_roles: 'MarketPost,SalesPost',
          create_time: now,
          edit_time: now,
          // The creator made the project: their membership needs no acceptance.
          accepted_at: now,
        });
        for (const hook of hooks) await hook(trx, app);
      });
      return { appId: app.id, name, description };
    },

    async edit(appId: string, callerId: number, input: ProjectInput): Promise<true> {
      const m = await access.manager(appId, callerId);
      // The interface names the creator's id here; the caller's own id is accepted as well.
      if (input.svc_user_id !== undefined && input.svc_user_id !== m.app.creator_id && input.svc_user_id !== callerId) {
        throw failure('svc_user_id_invalid', "svc_user_id must be the project creator's id (or the caller's)");
      }
      // A name that is sent must be a name: blank is refused, not ignored.
      if (input.name !== undefined && input.name.trim() === '') throw failure('name_invalid', 'name must not be blank');
      const name = validName(input.name, false);
      const description = validDescription(input.description);
      await db.transaction().execute(async (trx) => {
        const salesExport = input.sales_export;
        await repo.updateApp(trx, appId, {
          ...(name !== undefined ? { name } : {}),
          ...(description !== undefined ? { description } : {}),
          ...(salesExport !== undefined ? { sales_export: salesExport } : {}),
          edit_time: clock.now(),
        });
        const detail = {
          ...(name !== undefined ? { name } : {}),
          ...(description !== undefined ? { description } : {}),
          ...(salesExport !== undefined ? { salesExport } : {}),
        };
        await audit(trx, { appId, actorId: callerId, action: 'project.edit', targetType: 'project', targetId: appId, detail });
      });
      return true;
    },

    async detail(appId: string, callerId: number): Promise<ProjectResponse> {
      const m = await access.membership(appId, callerId);
      return toProject(m.app, clock);
    },

    /**
     * The creator of a live project whose secret this is (ingestion's default customer owner), or
     * null when the project is unknown, deleted, or the secret is wrong.
     */
    async creatorBySecret(appId: string, secret: string): Promise<number | null> {
      const app = await repo.findSecret(ctx.database, appId);
      // The comparison runs even for an unknown project, so timing does not tell which failed.
      const matches = safeEqual(app?.secret ?? '', secret);
      return app && app.status === 0 && matches ? app.creator_id : null;
    },

    /** The caller's projects; `secret` only where the caller is Master or Admin. */
    async mine(callerId: number): Promise<(ProjectResponse & { secret: string | null })[]> {
      const rows = await repo.listForUser(db, callerId);
      return rows.map((r) => ({ ...toProject(r, clock), secret: r.role === 'Master' || r.role === 'Admin' ? r.secret : null }));
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
