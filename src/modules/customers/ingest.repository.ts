/**
 * The customers' look-ups of ingestion (the ingest module's batches): the project of stored ids, and
 * a project's customers by id with their owner and merge; and, in the batch's transaction, the
 * customers' last activity raised to the batch's (docs/customers.md). Reached through the customers service
 * (`createCustomerIngestLookups`); it is the ingest module's `CustomerLookups`.
 */
import { type Database, type DatabaseHandle, bulkOps, crossProject, preparedQuery } from '../../db/index.ts';
import type { Kysely } from 'kysely';

/** A customer's latest activity in a batch: its project, id, and the time (epoch ms). */
export type LatestActivity = [appId: string, customerId: string, at: number];

/**
 * The project of a stored id, one id (the common one-record request, which PostgreSQL's reader
 * coalesces with its neighbours) or a list (bound as one parameter). Over every project: an id
 * another project's customer has is refused.
 */
const storedOne = preparedQuery('ingestStored_customers', ({ db }, id: string) =>
  db.selectFrom('customers').select(['id', 'app_id']).where('id', '=', id).modifyEnd(crossProject('ingest-global-ids')),
);
const storedList = preparedQuery('ingestStoredList_customers', ({ db, inList }, ids: string[]) =>
  db
    .selectFrom('customers')
    .select(['id', 'app_id'])
    .where(inList('id', ids, 'text'))
    .modifyEnd(crossProject('ingest-global-ids')),
);

const customerOne = preparedQuery('ingestCustomer', ({ db, projectIs }, appId: string, id: string) =>
  db.selectFrom('customers').select(['id', 'owner_id', 'merged_customer_id']).where('id', '=', id).where(projectIs('app_id', appId)),
);
const customerList = preparedQuery('ingestCustomers', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  // By primary key, the project checked on the rows found (projectIs): with a plain `app_id = ?`
  // beside the ids, SQLite (no statistics) walked the project's whole customer index instead, every
  // batch: 1M customers made a 1000-record batch cost ~300 ms instead of ~50 (measured on the bench's dataset).
  db
    .selectFrom('customers')
    .select(['id', 'owner_id', 'merged_customer_id'])
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

/** What ingestion reads of customers to resolve a batch's references, and the last activity it keeps. */
export function createCustomerIngestLookups(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  return {
    /** The project each of these ids already belongs to. */
    async storedProjects(ids: string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      if (ids.length === 0) return found;
      if (ids.length === 1) {
        for (const r of await database.reader.all(storedOne, ids[0] as string)) found.set(r.id, r.app_id);
        return found;
      }
      for (const part of bulk.lookupChunks(ids)) {
        for (const r of await database.reader.all(storedList, part)) found.set(r.id, r.app_id);
      }
      return found;
    },

    /**
     * Customers of the project (live, deleted or merged) among these ids, with their owner and, for a
     * merged one, the customer it was merged into.
     */
    async ofProject(appId: string, ids: string[]): Promise<Map<string, { owner_id: number; merged_customer_id: string | null }>> {
      const found = new Map<string, { owner_id: number; merged_customer_id: string | null }>();
      if (ids.length === 0) return found;
      const keep = (r: { id: string; owner_id: number; merged_customer_id: string | null }) =>
        found.set(r.id, { owner_id: r.owner_id, merged_customer_id: r.merged_customer_id });
      if (ids.length === 1) {
        for (const r of await database.reader.all(customerOne, appId, ids[0] as string)) keep(r);
        return found;
      }
      for (const part of bulk.lookupChunks(ids)) {
        for (const r of await database.reader.all(customerList, appId, part)) keep(r);
      }
      return found;
    },

    /**
     * Raises customers' last activity to these times where it is earlier, in the caller's
     * transaction: one statement for the whole batch (or group of batches), in (project, id) order so
     * that concurrent batches lock shared rows in the same order. Ids that are no customer of the
     * project change nothing.
     */
    async raiseLastActivity(trx: Kysely<Database>, latest: LatestActivity[]): Promise<void> {
      if (latest.length === 0) return;
      latest.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
      await bulk.raiseTo(trx, 'customers', 'last_activity_at', latest);
    },
  };
}
