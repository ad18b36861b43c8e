/**
 * The customers' SQL of a merge (merging.service.ts, for the merges module): the merge's customers
 * read and written inside its transaction, the survivor's pending flag dropped when its history has
 * moved, and the duplicates finder. The statements are the merge's own, moved here unchanged.
 */
import { type CustomersTable, type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import { type Kysely, type Updateable, sql } from 'kysely';
import type { CustomerIdsQuery, CustomerRow } from './mapper.ts';

type Db = Kysely<Database>;

/** What customers share in a duplicates set: a mobile number, an e-mail (any case), or a name and company. */
export type DuplicateKind = 'phone' | 'email' | 'name_company';

/** Whose duplicates: a project's live customers, or one owner's, sharing one kind of value. */
export interface DuplicateScope {
  appId: string;
  ownerId: number | null;
  by: DuplicateKind;
}

export function createCustomerMergeWrites(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** The customers of these ids, every column. */
    async rows(trx: Db, appId: string, ids: string[]): Promise<CustomerRow[]> {
      if (ids.length === 0) return [];
      return trx.selectFrom('customers').selectAll().where('app_id', '=', appId).where(bulk.anyOf('id', ids)).execute();
    },

    update(trx: Db, appId: string, id: string, patch: Updateable<CustomersTable>): Promise<CustomerRow | undefined> {
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

    /** The customers `ids` selects (merged earlier) name `survivorId` as the customer they were merged into. */
    async repoint(trx: Db, appId: string, ids: CustomerIdsQuery, survivorId: string, now: number): Promise<void> {
      await trx
        .updateTable('customers')
        .set({ merged_customer_id: survivorId, updated_at: now })
        .where('app_id', '=', appId)
        .where('id', 'in', ids)
        .execute();
    },

    /** The survivor's history has moved: reads take it alone again. */
    async settle(trx: Db, appId: string, survivorId: string): Promise<void> {
      await trx.updateTable('customers').set({ merge_pending: 0 }).where('app_id', '=', appId).where('id', '=', survivorId).execute();
    },

    /**
     * Live customers of a project (optionally one owner's) sharing a value: one page of the shared
     * values (name and company: the two joined by U+0001), then (duplicateMembers) their customers.
     */
    async duplicateGroups(db: Db, scope: DuplicateScope, offset: number, limit: number): Promise<string[]> {
      const { appId, ownerId, by } = scope;
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
      // Mobile numbers are one number however written: sets are made by their key (E.164).
      const column = by === 'phone' ? 'phone_key' : 'email_lower';
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

    async duplicateMembers(db: Db, scope: DuplicateScope, keys: string[]): Promise<CustomerRow[]> {
      const { appId, ownerId, by } = scope;
      if (keys.length === 0) return [];
      let q = db.selectFrom('customers').selectAll().where('app_id', '=', appId).where('status', '=', 1);
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      if (by === 'phone') q = q.where(bulk.anyOf('phone_key', keys));
      else if (by === 'email') q = q.where(bulk.anyOf('email_lower', keys));
      else {
        const names = [...new Set(keys.map((k) => k.split('\u0001')[0] ?? ''))];
        q = q.where(bulk.anyOf('name', names));
      }
      return q.orderBy('created_at').orderBy('id').execute();
    },
  };
}
