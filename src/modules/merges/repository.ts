import { type CustomersTable, type Database, type DialectFeatures, bulkOps, crossProject } from '../../db/index.ts';
import { type Kysely, type Selectable, type Updateable, sql } from 'kysely';

type Db = Kysely<Database>;
export type MergeCustomerRow = Selectable<CustomersTable>;
export type CustomerMergeRow = Selectable<Database['customer_merges']>;

/**
 * The link tables whose rows name a customer in `customer_id`, moved here from a merged customer to
 * its survivor by the background job in batches (behaviour records and calls move through their
 * owners: see the service's moves).
 */
export const MOVED_LINK_TABLES = ['link_view_logs', 'links'] as const;
export type MovedLinkTable = (typeof MOVED_LINK_TABLES)[number];

/** The advisory key that serialises merges (and the job's finishing of a survivor) within a project. */
function projectKey(appId: string): number {
  let h = 0x2f1a;
  for (let i = 0; i < appId.length; i += 1) h = (Math.imul(h, 31) + appId.charCodeAt(i)) | 0;
  return h;
}

export function createMergesRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Serialises this transaction against every other merge of the project until it ends. */
    async lockProject(trx: Db, appId: string): Promise<void> {
      await features.transactionLock(trx, projectKey(appId));
    },

    async customers(trx: Db, appId: string, ids: string[]): Promise<MergeCustomerRow[]> {
      if (ids.length === 0) return [];
      return trx.selectFrom('customers').selectAll().where('app_id', '=', appId).where(bulk.anyOf('id', ids)).execute();
    },

    update(trx: Db, appId: string, id: string, patch: Updateable<CustomersTable>): Promise<MergeCustomerRow | undefined> {
      return trx.updateTable('customers').set(patch).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
    },

    /** Marks customers merged into `survivorId` (status 2), owned by the survivor's owner. */
    async markMerged(trx: Db, appId: string, ids: string[], survivorId: string, ownerId: number, now: number): Promise<void> {
      await trx
        .updateTable('customers')
        .set({ status: 2, merged_customer_id: survivorId, owner_id: ownerId, group_id: null, merge_pending: 0, updated_at: now })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('id', ids))
        .execute();
    },

    /**
     * Customers merged earlier into one now merged, and their aliases, point at the new survivor:
     * every merged customer names a live one, and one alias hop always reaches it.
     */
    async repointEarlier(trx: Db, appId: string, mergedIds: string[], survivorId: string, now: number): Promise<void> {
      await trx
        .updateTable('customers')
        .set({ merged_customer_id: survivorId, updated_at: now })
        .where('app_id', '=', appId)
        .where('id', 'in', (q) =>
          q
            .selectFrom('customer_merges as m')
            .select('m.merged_id')
            .where('m.app_id', '=', appId)
            .where(bulk.anyOf('m.survivor_id', mergedIds)),
        )
        .execute();
      await trx
        .updateTable('customer_merges')
        .set({ survivor_id: survivorId })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('survivor_id', mergedIds))
        .execute();
    },

    async insertAliases(trx: Db, appId: string, mergedIds: string[], survivorId: string, now: number): Promise<void> {
      await bulk.insert(
        trx,
        'customer_merges',
        mergedIds.map((id) => ({ app_id: appId, merged_id: id, survivor_id: survivorId, merged_at: now, moved_at: null })),
      );
    },

    /** Visitors (cookies) tied to merged customers: few, moved at once, so the next visit lands on the survivor. */
    async moveVisitors(trx: Db, appId: string, mergedIds: string[], survivorId: string, now: number): Promise<void> {
      await trx
        .updateTable('visitors')
        .set({ customer_id: survivorId, updated_at: now })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', mergedIds))
        .execute();
    },

    /**
     * Live customers of a project (optionally one owner's) sharing a value: one page of the shared
     * values (name and company: the two joined by U+0001), then (duplicateMembers) their customers.
     */
    async duplicateGroups(
      db: Db,
      appId: string,
      ownerId: number | null,
      by: 'phone' | 'email' | 'name_company',
      offset: number,
      limit: number,
    ): Promise<string[]> {
      let q = db.selectFrom('customers').where('app_id', '=', appId).where('status', '=', 1);
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      if (by === 'name_company') {
        const rows = await q
          .select(['name', 'company'])
          .where('name', 'is not', null)
          .where('name', '!=', '')
          .where('company', 'is not', null)
          .where('company', '!=', '')
          .groupBy(['name', 'company'])
          .having(sql`count(*)`, '>', 1)
          .orderBy('name')
          .orderBy('company')
          .offset(offset)
          .limit(limit)
          .execute();
        return rows.map((r) => `${r.name ?? ''}\u0001${r.company ?? ''}`);
      }
      const column = by === 'phone' ? 'phone' : 'email_lower';
      const rows = await q
        .select(`${column} as k`)
        .where(column, 'is not', null)
        .where(column, '!=', '')
        .groupBy(column)
        .having(sql`count(*)`, '>', 1)
        .orderBy(column)
        .offset(offset)
        .limit(limit)
        .execute();
      return rows.map((r) => String(r.k));
    },

    async duplicateMembers(
      db: Db,
      appId: string,
      ownerId: number | null,
      by: 'phone' | 'email' | 'name_company',
      keys: string[],
    ): Promise<MergeCustomerRow[]> {
      if (keys.length === 0) return [];
      let q = db.selectFrom('customers').selectAll().where('app_id', '=', appId).where('status', '=', 1);
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      if (by === 'phone') q = q.where(bulk.anyOf('phone', keys));
      else if (by === 'email') q = q.where(bulk.anyOf('email_lower', keys));
      else {
        const names = [...new Set(keys.map((k) => k.split('\u0001')[0] ?? ''))];
        q = q.where(bulk.anyOf('name', names));
      }
      return q.orderBy('created_at').orderBy('id').execute();
    },

    // ---- The background job ------------------------------------------------------------------

    /** Merges whose history is still to be moved, in every project, oldest first. */
    pending(db: Db, limit: number): Promise<CustomerMergeRow[]> {
      return db
        .selectFrom('customer_merges')
        .selectAll()
        .where('moved_at', 'is', null)
        .orderBy('merged_at')
        .limit(limit)
        .modifyEnd(crossProject('merge-rewrite'))
        .execute();
    },

    /** Moves up to `batch` rows of one link table from the merged customer to the survivor; returns how many. */
    async moveBatch(trx: Db, table: MovedLinkTable, m: CustomerMergeRow, batch: number): Promise<number> {
      const ids = (await trx
        .selectFrom(table)
        .select('id')
        .where('app_id', '=', m.app_id)
        .where('customer_id', '=', m.merged_id)
        .limit(batch)
        .execute()) as { id: string }[];
      if (ids.length === 0) return 0;
      const list = ids.map((r) => r.id);
      await trx
        .updateTable(table)
        .set({ customer_id: m.survivor_id })
        // By primary key, the project checked on the rows found (SQLite would otherwise walk the project's index).
        .where(features.projectIs('app_id', m.app_id))
        .where(bulk.anyOf('id', list))
        .execute();
      return list.length;
    },

    /**
     * The merge is done: its alias stays (ingestion naming the merged id still lands on the
     * survivor) but reads no longer take it; the survivor's flag drops with its last pending merge.
     */
    async finish(trx: Db, m: CustomerMergeRow, now: number): Promise<void> {
      await trx
        .updateTable('customer_merges')
        .set({ moved_at: now })
        .where('app_id', '=', m.app_id)
        .where('merged_id', '=', m.merged_id)
        .where('survivor_id', '=', m.survivor_id)
        .execute();
      const left = await trx
        .selectFrom('customer_merges')
        .select('merged_id')
        .where('app_id', '=', m.app_id)
        .where('survivor_id', '=', m.survivor_id)
        .where('moved_at', 'is', null)
        .limit(1)
        .executeTakeFirst();
      if (left === undefined) {
        await trx
          .updateTable('customers')
          .set({ merge_pending: 0 })
          .where('app_id', '=', m.app_id)
          .where('id', '=', m.survivor_id)
          .execute();
      }
    },

    /** The alias as stored now (a later merge may have re-pointed it). */
    alias(trx: Db, m: CustomerMergeRow): Promise<CustomerMergeRow | undefined> {
      return trx
        .selectFrom('customer_merges')
        .selectAll()
        .where('app_id', '=', m.app_id)
        .where('merged_id', '=', m.merged_id)
        .executeTakeFirst();
    },
  };
}
export type MergesRepository = ReturnType<typeof createMergesRepository>;
