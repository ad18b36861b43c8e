/**
 * The SQL of the background job that keys the mobile numbers of customers stored before phone keys
 * existed (phone-keys.service.ts; migration 030, docs/customers.md "Phone numbers").
 */
import { type Database, crossProject } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

export const phoneKeysRepository = {
  /** Customers of any project with a mobile number and no key yet (the partial index customers_phone_key_pending_idx). */
  pending(db: Db, limit: number): Promise<{ id: string; app_id: string; phone: string | null }[]> {
    return db
      .selectFrom('customers')
      .select(['id', 'app_id', 'phone'])
      .where('phone', 'is not', null)
      .where('phone_key', 'is', null)
      .limit(limit)
      .modifyEnd(crossProject('phone-keys'))
      .execute();
  },

  /** The customer's key, unless its number changed since it was read (a write then set its key). */
  async setKey(db: Db, row: { app_id: string; id: string; phone: string }, key: string): Promise<void> {
    await db
      .updateTable('customers')
      .set({ phone_key: key })
      .where('app_id', '=', row.app_id)
      .where('id', '=', row.id)
      .where('phone', '=', row.phone)
      .where('phone_key', 'is', null)
      .execute();
  },
};
