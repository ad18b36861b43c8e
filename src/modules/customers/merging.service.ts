import type { Kysely, Updateable } from 'kysely';
import type { CustomersTable, Database, DatabaseHandle } from '../../db/index.ts';
import type { Actor } from '../access/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import type { CreatePath } from './create-path.ts';
import { type FieldValue, fieldValueRows, mergedExt, parseExt } from './fields.ts';
import type { CustomerIdsQuery, CustomerRow } from './mapper.ts';
import { type DuplicateScope, createCustomerMergeWrites } from './merging.repository.ts';
import { resetFieldValues } from './repository.ts';
import { validateCustomer } from './validation.ts';

/** Attribute values given with a merge for its survivor, and the owner the merge leaves it with. */
export interface MergeOverrides {
  /** The survivor as the merge composed it. */
  current: CustomerRow;
  input: Record<string, unknown>;
  /** The survivor's owner after the merge: the member the values are validated as acting for. */
  actingUserId: number;
}

/** Customers merged into a survivor (status 2), given to the survivor's owner. */
export interface MergedCustomers {
  appId: string;
  mergedIds: string[];
  survivorId: string;
  ownerId: number;
  now: number;
}

/** Customers merged earlier (a subquery of the caller's over its aliases) re-pointed at a new survivor. */
export interface RepointedCustomers {
  appId: string;
  ids: CustomerIdsQuery;
  survivorId: string;
  now: number;
}

/**
 * What the merges module needs of customers: inside a merge's transaction, the merge's rows read
 * and written, the overrides validated as an edit, the survivor's custom values indexed again, its
 * whetherMerge (docs/customers.md); the survivor settled by the history job; the duplicates finder.
 */
export function createCustomerMerging(deps: { metadata: MetadataService; path: CreatePath; database: DatabaseHandle }) {
  const { metadata, path, database } = deps;
  const writes = createCustomerMergeWrites(database.features);
  return {
    /** The customers of these ids in the project, every column, read in the merge's transaction. */
    mergeRows(trx: Kysely<Database>, appId: string, ids: string[]): Promise<CustomerRow[]> {
      return writes.rows(trx, appId, ids);
    },

    /** The survivor's attributes as the merge composed them; the row as stored after. */
    updateSurvivor(trx: Kysely<Database>, appId: string, id: string, patch: Updateable<CustomersTable>): Promise<CustomerRow | undefined> {
      return writes.update(trx, appId, id, patch);
    },

    /** The merged customers leave the live set: status 2, `merged_customer_id` the survivor, its owner, no group. */
    markMerged(trx: Kysely<Database>, m: MergedCustomers): Promise<void> {
      return writes.markMerged(trx, m.appId, m.mergedIds, m.survivorId, m.ownerId, m.now);
    },

    /** Customers merged earlier into ones now merged name the new survivor (one statement). */
    repointMerged(trx: Kysely<Database>, r: RepointedCustomers): Promise<void> {
      return writes.repoint(trx, r.appId, r.ids, r.survivorId, r.now);
    },

    /** The survivor's last pending merge is done: its `merge_pending` flag drops. */
    settleSurvivor(trx: Kysely<Database>, appId: string, survivorId: string): Promise<void> {
      return writes.settle(trx, appId, survivorId);
    },

    /** One page of the values live customers share (name and company joined by U+0001). */
    duplicateKeys(scope: DuplicateScope, page: { offset: number; limit: number }): Promise<string[]> {
      return writes.duplicateGroups(database.db, scope, page.offset, page.limit);
    },

    /** The live customers sharing these values, oldest first. */
    duplicateMembers(scope: DuplicateScope, keys: string[]): Promise<CustomerRow[]> {
      return writes.duplicateMembers(database.db, scope, keys);
    },

    /**
     * Validates attribute values given with a merge against the composed survivor, as an edit of it
     * by `actingUserId` would be (the owner is the merge's, not the input's; the actor, Master/Admin,
     * may name another member where the form asks for one). Run after the merged customers have left
     * the live set, so their own values are not "taken".
     */
    async validateMergeOverrides(trx: Kysely<Database>, actor: Actor, given: MergeOverrides): Promise<Updateable<CustomersTable>> {
      const appId = actor.app.id;
      const v = await validateCustomer(given.input, {
        mode: 'edit',
        metadata: await metadata.rows(trx, appId),
        actingUserId: given.actingUserId,
        mayAssignOthers: actor.isManager,
        current: given.current,
        ...(await path.envFor(trx, appId)),
      });
      const values: Updateable<CustomersTable> = { ...v.values };
      delete values.owner_id;
      delete values.allocation_user_id;
      // Custom fields given for the survivor join its composed ones (syncFieldValues then indexes them).
      if (Object.keys(v.fields).length > 0) values.ext = mergedExt(given.current.ext, v.fields);
      return values;
    },

    /**
     * Brings a customer's searchable and unique custom values (`customer_field_values`) in line with
     * its stored `ext`, when something other than create and edit composed it (a merge).
     */
    async syncFieldValues(trx: Kysely<Database>, appId: string, row: CustomerRow): Promise<void> {
      const ext = parseExt(row.ext) as Record<string, FieldValue | null>;
      await resetFieldValues(trx, appId, row.id, fieldValueRows(appId, row.id, ext));
    },

    /** whetherMerge of a row inside a transaction. */
    whetherMergeIn(trx: Kysely<Database>, row: CustomerRow): Promise<number> {
      return path.whetherMerge(trx, row);
    },
  };
}

export type CustomerMerging = ReturnType<typeof createCustomerMerging>;
