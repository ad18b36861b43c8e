import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import { type MetadataItem, type MetadataRow, toMetadataItem } from './mapper.ts';
import { metadataRepository as repo } from './repository.ts';

/** Per-project customer attribute configuration; stored per project so admins can later edit it. */
export function createMetadataService(ctx: AppContext, access: AccessService) {
  const db: Kysely<Database> = ctx.database.db;
  return {
    async list(appId: string | undefined, callerId: number): Promise<MetadataItem[]> {
      if (appId === undefined || appId === '') throw badRequest("Missing required parameter 'app_id'");
      await access.membership(appId, callerId);
      return (await repo.list(db, appId)).map(toMetadataItem);
    },
    /** The attributes rows, for the validation engine (inside the caller's transaction). */
    rows(executor: Kysely<Database>, appId: string): Promise<MetadataRow[]> {
      return repo.list(executor, appId);
    },
    seedDefaults: repo.seedDefaults,
  };
}

export type MetadataService = ReturnType<typeof createMetadataService>;
