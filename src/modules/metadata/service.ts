import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import { type MetadataRow, metadataRepository as repo } from './repository.ts';

export interface MetadataItem {
  appId: string;
  name: string;
  type: string;
  title: string;
  isExt: boolean;
  unique: boolean;
  required: boolean;
  visiable: boolean;
  index: number;
  defaultValue: string | null;
  optionValues: string | null;
  readonly: number;
}

export function toMetadataItem(r: MetadataRow): MetadataItem {
  return {
    appId: r.app_id,
    name: r.name,
    type: r.type,
    title: r.title,
    isExt: r.is_ext === 1,
    unique: r.is_unique === 1,
    required: r.required === 1,
    visiable: r.visiable === 1,
    index: r.sort_index,
    defaultValue: r.default_value,
    optionValues: r.option_values,
    readonly: r.readonly,
  };
}

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
