/** The customers' SQL of bulk actions (bulk.service.ts): the ids a list's filters match, frozen for a job. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import { type CustomerFilter, type CustomerScope, filtered } from './repository.ts';

type Db = Kysely<Database>;

export const customerBulkRepository = {
  /** Live customers in scope matching the list's filters, by id, at most `limit` of them. */
  async matchingIds(db: Db, scope: CustomerScope, filter: CustomerFilter, limit: number): Promise<string[]> {
    const rows = await filtered(db, scope, filter).clearSelect().select('id').where('status', '=', 1).orderBy('id').limit(limit).execute();
    return rows.map((r) => r.id);
  },
};
