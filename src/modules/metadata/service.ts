import type { Insertable, Kysely, Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CustomerMetadataTable, Database } from '../../db/index.ts';
import { badRequest } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import { type MetadataItem, type MetadataRow, toMetadataItem } from './mapper.ts';
import { metadataRepository as repo } from './repository.ts';

export type { MetadataItem, MetadataRow } from './mapper.ts';

/** The lock that orders field edits against the customer writes validating by the fields (per project). */
function fieldsLockKey(appId: string): number {
  // FNV-1a over the id, in a key space of its own (the event sequencer's key is a small number).
  let h = 0x811c9dc5;
  for (let i = 0; i < appId.length; i += 1) {
    h ^= appId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 0x7265_0000_0000 + h;
}

/** Per-project customer attribute configuration (docs/metadata.md). */
export function createMetadataService(ctx: AppContext, access: AccessService) {
  const db: Kysely<Database> = ctx.database.db;
  const features = ctx.database.features;
  return {
    /** The project's form: its attributes in order, removed ones left out. */
    async list(appId: string | undefined, callerId: number): Promise<MetadataItem[]> {
      if (appId === undefined || appId === '') throw badRequest("Missing required parameter 'app_id'");
      await access.membership(appId, callerId);
      return (await repo.list(db, appId)).filter((r) => r.hidden !== 1).map(toMetadataItem);
    },
    /**
     * The form's attributes for the validation engine, inside the caller's (writing) transaction.
     * The transaction holds the project's fields lock shared until it ends, so a field edit
     * (which holds it alone) waits for writes validated by the old form and is waited for by the
     * next ones: no write is checked against a form another transaction is changing.
     */
    async rows(trx: Kysely<Database>, appId: string): Promise<MetadataRow[]> {
      await features.transactionLock(trx, fieldsLockKey(appId), 'shared');
      return (await repo.list(trx, appId)).filter((r) => r.hidden !== 1);
    },
    /** The names of the form's custom fields marked searchable. */
    async searchable(appId: string): Promise<string[]> {
      return (await repo.list(db, appId)).filter((r) => r.hidden !== 1 && r.searchable === 1).map((r) => r.name);
    },
    /** Every attribute row, removed ones too, with the fields lock held alone: for a field edit. */
    async rowsForEdit(trx: Kysely<Database>, appId: string): Promise<MetadataRow[]> {
      await features.transactionLock(trx, fieldsLockKey(appId), 'exclusive');
      return repo.list(trx, appId);
    },
    insert: (trx: Kysely<Database>, row: Insertable<CustomerMetadataTable>) => repo.insert(trx, row),
    update: (trx: Kysely<Database>, appId: string, name: string, patch: Updateable<CustomerMetadataTable>) =>
      repo.update(trx, appId, name, patch),
    toItem: toMetadataItem,
    seedDefaults: repo.seedDefaults,
  };
}

export type MetadataService = ReturnType<typeof createMetadataService>;
