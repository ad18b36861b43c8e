import type { Kysely, Updateable } from 'kysely';
import type { CustomersTable, Database } from '../../db/index.ts';
import type { Actor } from '../access/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import type { CreatePath } from './create-path.ts';
import { type FieldValue, fieldValueRows, mergedExt, parseExt } from './fields.ts';
import type { CustomerRow } from './mapper.ts';
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

/**
 * What the merges module needs of customers inside a merge's transaction: the overrides validated as
 * an edit, the survivor's custom values indexed again, its whetherMerge (docs/customers.md).
 */
export function createCustomerMerging(deps: { metadata: MetadataService; path: CreatePath }) {
  const { metadata, path } = deps;
  return {
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
        ...path.envFor(trx, appId),
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
