/** The customers' SQL of imports and exports (data.service.ts). The API's reads and writes are in repository.ts. */
import type { CustomersTable, Database, DialectFeatures } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { CustomerRow } from './mapper.ts';
import { type CustomerFilter, type CustomerScope, LOOKUP_CHUNK, filtered } from './repository.ts';

type Db = Kysely<Database>;

export const customerDataRepository = {
  /** Live customers of the project whose `column` is one of these values (an import's duplicates). */
  async liveByValues(db: Db, appId: string, column: keyof CustomersTable, values: (string | number)[]): Promise<CustomerRow[]> {
    const out: CustomerRow[] = [];
    for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
      out.push(
        ...(await db
          .selectFrom('customers')
          .selectAll()
          .where('app_id', '=', appId)
          .where('status', '=', 1)
          .where(column, 'in', values.slice(i, i + LOOKUP_CHUNK) as never[])
          .execute()),
      );
    }
    return out;
  },

  /**
   * Live customers in scope matching the list's filters, in id order (creation order) after
   * `afterId`: an export walks the primary key a page at a time, whatever the number of rows, and
   * a customer changed meanwhile keeps its place.
   */
  exportPage(
    db: Db,
    features: DialectFeatures,
    scope: CustomerScope,
    filter: CustomerFilter,
    afterId: string | null,
    limit: number,
  ): Promise<CustomerRow[]> {
    // The project's condition kept out of SQLite's index choice: the walk is the primary key's,
    // never the project's list index sorted again for every page.
    let q = filtered(db, scope, filter, features).where('status', '=', 1);
    if (afterId !== null) q = q.where('id', '>', afterId);
    return q.orderBy('id').limit(limit).execute();
  },

  /** Live customers in scope among these ids, in id order (a bulk export's batch). */
  inScopeByIds(db: Db, scope: CustomerScope, ids: string[]): Promise<CustomerRow[]> {
    let q = db.selectFrom('customers').selectAll().where('app_id', '=', scope.appId).where('status', '=', 1).where('id', 'in', ids);
    if (scope.ownerId !== null) q = q.where('owner_id', '=', scope.ownerId);
    return q.orderBy('id').execute();
  },
};
