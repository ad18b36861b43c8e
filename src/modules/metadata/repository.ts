import type { Insertable, Kysely, Updateable } from 'kysely';
import type { CustomerMetadataTable, Database } from '../../db/index.ts';
import { DEFAULT_METADATA } from './defaults.ts';
import type { MetadataRow } from './mapper.ts';

type Db = Kysely<Database>;

export const metadataRepository = {
  /** The project's attributes in display order, removed (hidden) ones included. */
  list(db: Db, appId: string): Promise<MetadataRow[]> {
    return db.selectFrom('customer_metadata').selectAll().where('app_id', '=', appId).orderBy('sort_index').orderBy('name').execute();
  },

  async insert(db: Db, row: Insertable<CustomerMetadataTable>): Promise<void> {
    await db.insertInto('customer_metadata').values(row).execute();
  },

  async update(db: Db, appId: string, name: string, patch: Updateable<CustomerMetadataTable>): Promise<void> {
    await db.updateTable('customer_metadata').set(patch).where('app_id', '=', appId).where('name', '=', name).execute();
  },

  async seedDefaults(db: Db, appId: string): Promise<void> {
    await db
      .insertInto('customer_metadata')
      .values(
        DEFAULT_METADATA.map((d, index) => ({
          app_id: appId,
          name: d.name,
          type: d.type,
          title: d.title,
          is_ext: 0,
          is_unique: d.unique ? 1 : 0,
          required: d.required ? 1 : 0,
          visiable: d.visiable === false ? 0 : 1,
          sort_index: index,
          default_value: d.defaultValue ?? null,
          option_values: d.options ? JSON.stringify(d.options) : null,
          readonly: d.readonly ? 1 : 0,
        })),
      )
      .execute();
  },
};
