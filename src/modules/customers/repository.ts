/**
 * The customers' SQL of the API (api.service.ts: lists, search, the detail, edits, transfers) and of
 * what the surface (service.ts) and merges read and write. The create path's is in
 * writes.repository.ts, imports' and exports' in data.repository.ts.
 */
import {
  type PreparedReader,
  preparedQuery,
  type CustomersTable,
  type CustomerFieldValuesTable,
  type Database,
  crossProject,
} from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { CustomerRow } from './mapper.ts';
import {
  type CustomerListRow,
  type ListReadModels,
  type CustomerScope,
  DEFAULT_SORT,
  livePage,
  twinBy,
  withListExtras,
} from './list.repository.ts';

export type { BehaviourTotalOf, CustomerFilter, CustomerListRow, CustomerScope, ListReadModels, ScoreStateOf } from './list.repository.ts';
export { filtered, listExtras } from './list.repository.ts';

type Db = Kysely<Database>;

/** Which customers a campaign mails: these ids, or a group's; only one owner's when `ownerId` is set. */
/** Customers by id, by group, or by their e-mail address lower-cased (the sequences' inbound mail: who replied). */
export type MailRecipientQuery = ({ ids: string[] } | { groupId: string } | { emailLower: string }) & { ownerId: number | null };

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

/** The project's customers among these ids, found by primary key (DialectFeatures.projectIs). */
const customersIn = preparedQuery('customersIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

/**
 * The prepared search and detail statements, each with what its item shows besides the row
 * (withListExtras, in the list's default order), built with the behaviour module's read model. One
 * statement per shape (owner filter or not), so each is prepared once. The list's are in
 * list.repository.ts.
 */
function listQueries(models: ListReadModels) {
  const projectCustomers = (db: Kysely<Database>, appId: string) => db.selectFrom('customers').selectAll().where('app_id', '=', appId);
  const searchQueries = (column: 'phone_key' | 'email_lower') => ({
    all: preparedQuery(`customerSearch_${column}`, ({ db }, appId: string, value: string, offset: number, limit: number) =>
      withListExtras(
        db,
        livePage(projectCustomers(db, appId).where(column, '=', value), DEFAULT_SORT, offset, limit),
        models,
        DEFAULT_SORT,
      ),
    ),
    owned: preparedQuery(
      `customerSearchOwned_${column}`,
      ({ db }, appId: string, value: string, ownerId: number, offset: number, limit: number) =>
        withListExtras(
          db,
          livePage(projectCustomers(db, appId).where(column, '=', value).where('owner_id', '=', ownerId), DEFAULT_SORT, offset, limit),
          models,
          DEFAULT_SORT,
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
        models.behaviourTotal(eb).as('behaviour_total'),
        twinBy(eb, 'phone_key').as('phone_twin'),
        twinBy(eb, 'email_lower').as('email_twin'),
        models.scoreState(eb).as('score_state'),
      ])
      .where('c.id', '=', id)
      .modifyEnd(crossProject('record-by-id')),
  );
  return {
    searches: { phone_key: searchQueries('phone_key'), email_lower: searchQueries('email_lower') },
    detailOf,
  };
}

/** What a search matches: a mobile number's key, or a lower-cased e-mail. */
export type SearchBy = { column: 'phone_key' | 'email_lower'; value: string };

/**
 * The reads that show a customer's behaviour record count (search pages, the detail; the list's are
 * customerListReads of list.repository.ts) and the detail's "seen" mark, built once by the service with the behaviour module's read model.
 */
export function customerReads(models: ListReadModels) {
  const { searches, detailOf } = listQueries(models);
  const { behaviourTotal } = models;
  return {
    /** A customer as committed with what its detail needs besides the row (see detailOf). */
    async detail(
      reader: PreparedReader,
      id: string,
    ): Promise<{ row: CustomerRow; hasNewBehaviour: boolean; whetherMerge: number; scoreState: unknown } | undefined> {
      const found = await reader.first(detailOf, id);
      if (found === undefined) return undefined;
      const { behaviour_total, phone_twin, email_twin, score_state, ...row } = found;
      // Empty phone or e-mail never makes a twin (as in duplicates()).
      const merge = (row.phone_key && Number(phone_twin)) || (row.email_lower && Number(email_twin)) ? 1 : 0;
      return {
        row,
        hasNewBehaviour: Number(behaviour_total ?? 0) > Number(row.seen_behaviour_count),
        whetherMerge: merge,
        scoreState: score_state as unknown,
      };
    },

    /** A mobile number's key (E.164), or a lower-cased e-mail, among live customers in scope. */
    search(reader: PreparedReader, scope: CustomerScope, by: SearchBy, offset: number, limit: number): Promise<CustomerListRow[]> {
      const shapes = searches[by.column];
      const value = by.value;
      return (
        scope.ownerId === null
          ? reader.all(shapes.all, scope.appId, value, offset, limit)
          : reader.all(shapes.owned, scope.appId, value, scope.ownerId, offset, limit)
      ) as Promise<CustomerListRow[]>;
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

  /** Live customers of the project among `ids`, in `groupId`, or of an address, by id; only `ownerId`'s when given (a campaign's recipients). */
  mailRecipients(db: Db, appId: string, query: MailRecipientQuery): Promise<MailRecipient[]> {
    let q = db
      .selectFrom('customers')
      .select(['id', 'owner_id', 'name', 'email', 'company', 'title', 'phone'])
      .where('app_id', '=', appId)
      .where('status', '=', 1)
      .where('merged_customer_id', 'is', null);
    if ('ids' in query) q = q.where('id', 'in', query.ids);
    else if ('groupId' in query) q = q.where('group_id', '=', query.groupId);
    else q = q.where('email_lower', '=', query.emailLower);
    if (query.ownerId !== null) q = q.where('owner_id', '=', query.ownerId);
    return q.orderBy('id').execute();
  },
};

/** The value of one custom field of each of these customers that has one. */
export async function fieldValueOf(db: Db, appId: string, customerIds: string[], name: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < customerIds.length; i += 500) {
    const rows = await db
      .selectFrom('customer_field_values')
      .select(['customer_id', 'value'])
      .where('app_id', '=', appId)
      .where('name', '=', name)
      .where('customer_id', 'in', customerIds.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.customer_id, r.value);
  }
  return out;
}

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
