/**
 * The customers' SQL of the API (api.service.ts: lists, search, the detail, edits, transfers) and of
 * what the surface (service.ts) and merges read and write. The create path's is in
 * writes.repository.ts, imports' and exports' in data.repository.ts.
 */
import {
  type Anchor,
  anchoredPage,
  type PreparedReader,
  type RowOf,
  preparedQuery,
  type CustomersTable,
  type CustomerFieldValuesTable,
  type Database,
  type DatabaseHandle,
  type DialectFeatures,
  crossProject,
  containsInsensitive,
} from '../../db/index.ts';
import {
  type AliasableExpression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type SelectQueryBuilder,
  type Updateable,
} from 'kysely';
import type { CustomerRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Which customers a campaign mails: these ids, or a group's; only one owner's when `ownerId` is set. */
export type MailRecipientQuery = ({ ids: string[] } | { groupId: string }) & { ownerId: number | null };

/** What a campaign's mail knows of a customer: its merge values, and whose it is. */
export interface MailRecipient {
  id: string;
  owner_id: number;
  name: string | null;
  email: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
}

/** Values per lookup statement: well under every dialect's parameter limit. */
export const LOOKUP_CHUNK = 1000;

/** Whose customers a query covers: a project, optionally one owner. */
export interface CustomerScope {
  appId: string;
  ownerId: number | null;
}

/** What a filtered list keeps: see customersRepository.filteredPage. */
export interface CustomerFilter {
  keyword?: string | undefined;
  groupId?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  /** Custom fields the keyword also looks in (those marked searchable). */
  searchFields?: string[] | undefined;
}

/** Live customers, newest change first, the id breaking ties so pages never overlap; one page of them. */
function livePage<O>(q: SelectQueryBuilder<Database, 'customers', O>, offset: number, limit: number) {
  return q.where('status', '=', 1).orderBy('updated_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit);
}

/** Rows after a known one in that order (a page anchor: see the customers service). */
function after<O>(q: SelectQueryBuilder<Database, 'customers', O>, updatedAt: number, id: string) {
  return q.where((eb) => eb(eb.refTuple('updated_at', 'id'), '<', eb.tuple(updatedAt, id)));
}

/**
 * A customer's behaviour record count as a subquery correlated with the row aliased `c`: the
 * behaviour module's read model (its service's `customerTotal`), handed to `customerReads`.
 */
export type BehaviourTotalOf = (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>) => AliasableExpression<number>;

/** Another live customer of the same owner with the same value in `column` (an index seek). */
const twinBy = (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>, column: 'phone_key' | 'email_lower') =>
  eb.exists(
    eb
      .selectFrom('customers as d')
      .select('d.id')
      .whereRef('d.app_id', '=', 'c.app_id')
      .whereRef(`d.${column}`, '=', `c.${column}`)
      .whereRef('d.owner_id', '=', 'c.owner_id')
      .whereRef('d.id', '!=', 'c.id')
      .where('d.status', '=', 1),
  );

/**
 * A page with what a list item shows besides the row, in the same statement: the behaviour total
 * (newCount) and whether a live customer of the same owner shares the phone or e-mail
 * (whetherMerge), each an index seek per row of the page only (the page is a subquery, so rows
 * skipped by the offset are never looked at). One statement instead of four.
 */
function withListExtras(
  db: Kysely<Database>,
  page: SelectQueryBuilder<Database, 'customers', CustomerRow>,
  behaviourTotal: BehaviourTotalOf,
) {
  return db
    .selectFrom(page.as('c'))
    .selectAll('c')
    .select((eb) => {
      const e = eb as unknown as ExpressionBuilder<Database & { c: CustomersTable }, 'c'>;
      return [behaviourTotal(e).as('behaviour_total'), twinBy(e, 'phone_key').as('phone_twin'), twinBy(e, 'email_lower').as('email_twin')];
    })
    .orderBy('c.updated_at', 'desc')
    .orderBy('c.id', 'desc');
}

/** The project's customers among these ids, found by primary key (DialectFeatures.projectIs). */
const customersIn = preparedQuery('customersIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

/**
 * The prepared list, search and detail statements, each with what its item shows besides the row
 * (withListExtras), built with the behaviour module's read model. One statement per shape (owner
 * filter or not), so each is prepared once.
 */
function listQueries(behaviourTotal: BehaviourTotalOf) {
  const projectCustomers = (db: Kysely<Database>, appId: string) => db.selectFrom('customers').selectAll().where('app_id', '=', appId);
  const listAll = preparedQuery('customerListAll', ({ db }, appId: string, offset: number, limit: number) =>
    withListExtras(db, livePage(projectCustomers(db, appId), offset, limit), behaviourTotal),
  );
  const listOwned = preparedQuery('customerListOwned', ({ db }, appId: string, ownerId: number, offset: number, limit: number) =>
    withListExtras(db, livePage(projectCustomers(db, appId).where('owner_id', '=', ownerId), offset, limit), behaviourTotal),
  );
  const listAllAfter = preparedQuery(
    'customerListAllAfter',
    ({ db }, appId: string, updatedAt: number, id: string, offset: number, limit: number) =>
      withListExtras(db, livePage(after(projectCustomers(db, appId), updatedAt, id), offset, limit), behaviourTotal),
  );
  const listOwnedAfter = preparedQuery(
    'customerListOwnedAfter',
    ({ db }, appId: string, ownerId: number, updatedAt: number, id: string, offset: number, limit: number) =>
      withListExtras(
        db,
        livePage(after(projectCustomers(db, appId).where('owner_id', '=', ownerId), updatedAt, id), offset, limit),
        behaviourTotal,
      ),
  );
  const searchQueries = (column: 'phone_key' | 'email_lower') => ({
    all: preparedQuery(`customerSearch_${column}`, ({ db }, appId: string, value: string, offset: number, limit: number) =>
      withListExtras(db, livePage(projectCustomers(db, appId).where(column, '=', value), offset, limit), behaviourTotal),
    ),
    owned: preparedQuery(
      `customerSearchOwned_${column}`,
      ({ db }, appId: string, value: string, ownerId: number, offset: number, limit: number) =>
        withListExtras(
          db,
          livePage(projectCustomers(db, appId).where(column, '=', value).where('owner_id', '=', ownerId), offset, limit),
          behaviourTotal,
        ),
    ),
  });
  /**
   * The detail in one statement: the row, its behaviour record count (new since the owner's last look?),
   * and whether a live customer of the same owner shares its phone or e-mail (whetherMerge), each
   * an index seek. The detail's path names the customer only: its project is the row's.
   */
  const detailOf = preparedQuery('customerDetail', ({ db }, id: string) =>
    db
      .selectFrom('customers as c')
      .selectAll('c')
      .select((eb) => [
        behaviourTotal(eb).as('behaviour_total'),
        twinBy(eb, 'phone_key').as('phone_twin'),
        twinBy(eb, 'email_lower').as('email_twin'),
      ])
      .where('c.id', '=', id)
      .modifyEnd(crossProject('record-by-id')),
  );
  return {
    listAll,
    listOwned,
    listAllAfter,
    listOwnedAfter,
    searches: { phone_key: searchQueries('phone_key'), email_lower: searchQueries('email_lower') },
    detailOf,
  };
}

/** What a search matches: a mobile number's key, or a lower-cased e-mail. */
export type SearchBy = { column: 'phone_key' | 'email_lower'; value: string };

/** A list or search row: the customer and its extras (withListExtras). */
export type CustomerListRow = RowOf<ReturnType<typeof listQueries>['listAll']>;

/** What a list item adds to the row, from the extras of its statement. */
export function listExtras(r: CustomerListRow): { whetherMerge: number; newCount: number } {
  // Empty phone or e-mail never makes a twin (as in duplicates()).
  const merge = (r.phone_key && Number(r.phone_twin)) || (r.email_lower && Number(r.email_twin)) ? 1 : 0;
  return { whetherMerge: merge, newCount: Math.max(0, Number(r.behaviour_total ?? 0) - Number(r.seen_behaviour_count)) };
}

/** A customer list's order key: (updated_at, id), newest first. */
type ListKey = { updatedAt: number; id: string };
/** Lists (project × owner) whose page anchors are kept. */
const MAX_ANCHORED_LISTS = 1000;

/** Customers in scope that match the list's filters (see customerReads' filteredPage, and an export's pages in data.repository.ts). */
export function filtered(db: Db, scope: CustomerScope, filter: CustomerFilter, byKey?: DialectFeatures) {
  let q = db.selectFrom('customers').selectAll();
  q = byKey ? q.where(byKey.projectIs('app_id', scope.appId)) : q.where('app_id', '=', scope.appId);
  if (scope.ownerId !== null) q = q.where('owner_id', '=', scope.ownerId);
  const { groupId, keyword, phone, email } = filter;
  if (groupId !== undefined) q = groupId === '' ? q.where('group_id', 'is', null) : q.where('group_id', '=', groupId);
  // `phone` is the number's key (E.164): found however it was written.
  if (phone !== undefined) q = q.where('phone_key', '=', phone);
  if (email !== undefined) q = q.where('email_lower', '=', email.toLowerCase());
  if (keyword !== undefined && keyword !== '') {
    // Custom fields marked searchable are searched too (their values in customer_field_values).
    const fields = filter.searchFields ?? [];
    q = q.where((eb) =>
      eb.or([
        containsInsensitive(eb, eb.ref('name'), keyword),
        containsInsensitive(eb, eb.ref('company'), keyword),
        containsInsensitive(eb, eb.ref('phone'), keyword),
        containsInsensitive(eb, eb.ref('email_lower'), keyword),
        ...(fields.length === 0
          ? []
          : [
              eb.exists(
                eb
                  .selectFrom('customer_field_values as v')
                  .select('v.customer_id')
                  .where('v.app_id', '=', scope.appId)
                  .whereRef('v.customer_id', '=', 'customers.id')
                  .where('v.name', 'in', fields)
                  .where((e) => containsInsensitive(e, e.ref('v.value_lower'), keyword)),
              ),
            ]),
      ]),
    );
  }
  return q;
}

/**
 * The reads that show a customer's behaviour record count (list and search pages, the detail) and
 * the detail's "seen" mark, built once by the service with the behaviour module's read model.
 */
export function customerReads(behaviourTotal: BehaviourTotalOf) {
  const { listAll, listOwned, listAllAfter, listOwnedAfter, searches, detailOf } = listQueries(behaviourTotal);
  return {
    /** A customer as committed with what its detail needs besides the row (see detailOf). */
    async detail(
      reader: PreparedReader,
      id: string,
    ): Promise<{ row: CustomerRow; hasNewBehaviour: boolean; whetherMerge: number } | undefined> {
      const found = await reader.first(detailOf, id);
      if (found === undefined) return undefined;
      const { behaviour_total, phone_twin, email_twin, ...row } = found;
      // Empty phone or e-mail never makes a twin (as in duplicates()).
      const merge = (row.phone_key && Number(phone_twin)) || (row.email_lower && Number(email_twin)) ? 1 : 0;
      return { row, hasNewBehaviour: Number(behaviour_total ?? 0) > Number(row.seen_behaviour_count), whetherMerge: merge };
    },

    /**
     * A page of live customers, newest change first; the id breaks ties so pages never overlap.
     * Deep pages seek from where earlier pages of the same list ended (src/db/page-anchors.ts).
     */
    page(database: DatabaseHandle, scope: CustomerScope, offset: number, limit: number): Promise<CustomerListRow[]> {
      const reader = database.reader;
      const anchors = database.cache<string, Anchor<ListKey>[]>('customer-list-anchors', 'customers', MAX_ANCHORED_LISTS);
      return anchoredPage(anchors, `${scope.appId}:${scope.ownerId ?? '*'}`, offset, limit, {
        from: (from, count) =>
          scope.ownerId === null
            ? reader.all(listAll, scope.appId, from, count)
            : reader.all(listOwned, scope.appId, scope.ownerId, from, count),
        after: (key, skip, count) =>
          scope.ownerId === null
            ? reader.all(listAllAfter, scope.appId, key.updatedAt, key.id, skip, count)
            : reader.all(listOwnedAfter, scope.appId, scope.ownerId, key.updatedAt, key.id, skip, count),
        keyOf: (row) => ({ updatedAt: row.updated_at, id: row.id }),
      });
    },

    /**
     * A page of live customers in scope that match a filter: `keyword` in the name, company, mobile
     * number or e-mail (any case), `groupId` their group ('' for none). The list's order and extras; a
     * filtered list is read as it is asked (no prepared statement, no page anchors: a filter narrows
     * the rows, and its pages are read while someone looks at them).
     */
    filteredPage(db: Db, scope: CustomerScope, filter: CustomerFilter, offset: number, limit: number): Promise<CustomerListRow[]> {
      return withListExtras(db, livePage(filtered(db, scope, filter), offset, limit), behaviourTotal).execute() as Promise<
        CustomerListRow[]
      >;
    },

    /** A mobile number's key (E.164), or a lower-cased e-mail, among live customers in scope. */
    search(reader: PreparedReader, scope: CustomerScope, by: SearchBy, offset: number, limit: number): Promise<CustomerListRow[]> {
      const shapes = searches[by.column];
      const value = by.value;
      return scope.ownerId === null
        ? reader.all(shapes.all, scope.appId, value, offset, limit)
        : reader.all(shapes.owned, scope.appId, value, scope.ownerId, offset, limit);
    },

    /** The owner opened the detail: not new any more, and every record so far is seen. */
    async markSeen(db: Db, appId: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('customers as c')
        .set((eb) => ({ is_new: 0, detail_viewed_at: now, seen_behaviour_count: behaviourTotal(eb) }))
        .where('c.app_id', '=', appId)
        .where('c.id', '=', id)
        .execute();
    },
  };
}

export const customersRepository = {
  find(db: Db, appId: string, id: string): Promise<CustomerRow | undefined> {
    return db.selectFrom('customers').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /**
   * The customer, its row locked until the transaction ends where the database has row locks
   * (`rowLocks`; SQLite's single writer serialises anyway): an edit reads, merges and writes it
   * while concurrent edits of the same customer wait.
   */
  findForUpdate(db: Db, appId: string, id: string, rowLocks: boolean): Promise<CustomerRow | undefined> {
    const q = db.selectFrom('customers').selectAll().where('app_id', '=', appId).where('id', '=', id);
    return (rowLocks ? q.forUpdate() : q).executeTakeFirst();
  },

  /** The project's customers among these ids (inside a transaction: `readerFor(trx)`). */
  findMany(reader: PreparedReader, appId: string, ids: string[]): Promise<CustomerRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return reader.all(customersIn, appId, ids);
  },

  async insert(db: Db, row: Insertable<CustomersTable>): Promise<void> {
    await db.insertInto('customers').values(row).execute();
  },

  update(db: Db, appId: string, id: string, patch: Updateable<CustomersTable>): Promise<CustomerRow | undefined> {
    return db.updateTable('customers').set(patch).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
  },
  /** Live customers in each of these groups of the project (groups without any are left out). */
  async liveCountsByGroup(db: Db, appId: string, groupIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let i = 0; i < groupIds.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('customers')
        .select(['group_id'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('app_id', '=', appId)
        .where('status', '=', 1)
        .where('group_id', 'in', groupIds.slice(i, i + LOOKUP_CHUNK))
        .groupBy('group_id')
        .execute();
      for (const r of rows) if (r.group_id !== null) counts.set(r.group_id, Number(r.n));
    }
    return counts;
  },

  /** Live customers of the project among `ids`, or in `groupId`, by id; only `ownerId`'s when given (a campaign's recipients). */
  mailRecipients(db: Db, appId: string, query: MailRecipientQuery): Promise<MailRecipient[]> {
    let q = db
      .selectFrom('customers')
      .select(['id', 'owner_id', 'name', 'email', 'company', 'title', 'phone'])
      .where('app_id', '=', appId)
      .where('status', '=', 1)
      .where('merged_customer_id', 'is', null);
    q = 'ids' in query ? q.where('id', 'in', query.ids) : q.where('group_id', '=', query.groupId);
    if (query.ownerId !== null) q = q.where('owner_id', '=', query.ownerId);
    return q.orderBy('id').execute();
  },
};

/** All of a customer's custom values replaced by the given rows (its `ext` was recomposed: a merge). */
export async function resetFieldValues(db: Db, appId: string, customerId: string, rows: CustomerFieldValuesTable[]) {
  await db.deleteFrom('customer_field_values').where('app_id', '=', appId).where('customer_id', '=', customerId).execute();
  if (rows.length > 0) await db.insertInto('customer_field_values').values(rows).execute();
}

/** A customer's custom values of these fields replaced by the given rows (an edit). */
export async function replaceFieldValues(db: Db, appId: string, customerId: string, names: string[], rows: CustomerFieldValuesTable[]) {
  if (names.length === 0) return;
  await db
    .deleteFrom('customer_field_values')
    .where('app_id', '=', appId)
    .where('customer_id', '=', customerId)
    .where('name', 'in', names)
    .execute();
  if (rows.length > 0) await db.insertInto('customer_field_values').values(rows).execute();
}
