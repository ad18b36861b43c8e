import { type Insertable, type Kysely, type Updateable, sql } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { CustomersTable } from '../../db/schema.ts';
import type { CustomerRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Values per lookup statement: well under every dialect's parameter limit. */
const LOOKUP_CHUNK = 1000;

/** Whose customers a query covers: a project, optionally one owner. */
export interface CustomerScope {
  appId: string;
  ownerId: number | null;
}

export const customersRepository = {
  find(db: Db, id: string): Promise<CustomerRow | undefined> {
    return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
  },

  findMany(db: Db, appId: string, ids: string[]): Promise<CustomerRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // By primary key only; the project is checked on the rows (see customersByIds in histories).
    return db
      .selectFrom('customers')
      .selectAll()
      .where('id', 'in', ids)
      .execute()
      .then((rows) => rows.filter((r) => r.app_id === appId));
  },

  async insert(db: Db, row: Insertable<CustomersTable>): Promise<void> {
    await db.insertInto('customers').values(row).execute();
  },

  update(db: Db, id: string, patch: Updateable<CustomersTable>): Promise<CustomerRow | undefined> {
    return db.updateTable('customers').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
  },

  /** A page of live customers, newest change first; the id breaks ties so pages never overlap. */
  list(db: Db, scope: CustomerScope, offset: number, limit: number): Promise<CustomerRow[]> {
    let q = db.selectFrom('customers').selectAll().where('app_id', '=', scope.appId);
    if (scope.ownerId !== null) q = q.where('owner_id', '=', scope.ownerId);
    return q.where('status', '=', 1).orderBy('updated_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  },

  /** Exact phone, or e-mail case-insensitively, among live customers in scope. */
  search(db: Db, scope: CustomerScope, condition: string, offset: number, limit: number): Promise<CustomerRow[]> {
    let q = db.selectFrom('customers').selectAll().where('app_id', '=', scope.appId);
    q = condition.includes('@') ? q.where('email_lower', '=', condition.toLowerCase()) : q.where('phone', '=', condition);
    if (scope.ownerId !== null) q = q.where('owner_id', '=', scope.ownerId);
    return q.where('status', '=', 1).orderBy('updated_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  },

  /** Owners' live customers sharing a phone or e-mail with the given ones: the base of whetherMerge. */
  async duplicates(db: Db, appId: string, rows: CustomerRow[]): Promise<Set<string>> {
    const phones = [...new Set(rows.map((r) => r.phone).filter((v): v is string => !!v))];
    const emails = [...new Set(rows.map((r) => r.email_lower).filter((v): v is string => !!v))];
    if (phones.length === 0 && emails.length === 0) return new Set();
    // One seek per index (phone, e-mail); status is checked on the rows so that the phone and e-mail
    // indexes stay the planner's obvious choice.
    const cols = ['id', 'owner_id', 'phone', 'email_lower', 'status'] as const;
    const [byPhone, byEmail] = await Promise.all([
      phones.length ? db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('phone', 'in', phones).execute() : [],
      emails.length ? db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('email_lower', 'in', emails).execute() : [],
    ]);
    const others = [...byPhone, ...byEmail].filter((o) => o.status === 1);
    const merge = new Set<string>();
    for (const r of rows) {
      const twin = others.some(
        (o) =>
          o.id !== r.id &&
          o.owner_id === r.owner_id &&
          ((r.phone && o.phone === r.phone) || (r.email_lower && o.email_lower === r.email_lower)),
      );
      if (twin) merge.add(r.id);
    }
    return merge;
  },

  /** Which of these values live customers of the project already have in a column (as text). */
  async liveValues(db: Db, appId: string, column: keyof CustomersTable, values: (string | number)[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('customers')
        .select(sql<string | number>`${sql.ref(column)}`.as('value'))
        .where('app_id', '=', appId)
        .where('status', '=', 1)
        .where(column, 'in', values.slice(i, i + LOOKUP_CHUNK) as never[])
        .execute();
      for (const r of rows) found.add(String(r.value));
    }
    return found;
  },

  /** Live customers of the project sharing a phone or an e-mail with any of the rows (for whetherMerge). */
  async liveTwins(
    db: Db,
    appId: string,
    rows: CustomerRow[],
  ): Promise<{ owner_id: number; phone: string | null; email_lower: string | null }[]> {
    const phones = [...new Set(rows.map((r) => r.phone).filter((v): v is string => !!v))];
    const emails = [...new Set(rows.map((r) => r.email_lower).filter((v): v is string => !!v))];
    const cols = ['owner_id', 'phone', 'email_lower', 'status'] as const;
    const out: { owner_id: number; phone: string | null; email_lower: string | null; status: number }[] = [];
    // One seek per value and index (phone, e-mail), as in duplicates.
    for (let i = 0; i < phones.length; i += LOOKUP_CHUNK) {
      const part = phones.slice(i, i + LOOKUP_CHUNK);
      out.push(...(await db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('phone', 'in', part).execute()));
    }
    for (let i = 0; i < emails.length; i += LOOKUP_CHUNK) {
      const part = emails.slice(i, i + LOOKUP_CHUNK);
      out.push(...(await db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('email_lower', 'in', part).execute()));
    }
    return out.filter((o) => o.status === 1);
  },

  /** Behaviour records newer than the owner's last look at each customer. */
  async newCounts(db: Db, rows: CustomerRow[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      rows.map(async (r) => {
        const row = await db
          .selectFrom('behaviour_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('customer_id', '=', r.id)
          .where('created_at', '>', r.detail_viewed_at ?? -1)
          .executeTakeFirst();
        out.set(r.id, Number(row?.n ?? 0));
      }),
    );
    return out;
  },

  async hasBehaviourSince(db: Db, customerId: string, since: number): Promise<boolean> {
    const row = await db
      .selectFrom('behaviour_logs')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('created_at', '>', since)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  async isTaken(
    db: Db,
    appId: string,
    column: keyof CustomersTable,
    value: string | number,
    exceptId: string | undefined,
  ): Promise<boolean> {
    let q = db
      .selectFrom('customers')
      .select('id')
      .where('app_id', '=', appId)
      .where('status', '=', 1)
      .where(column, '=', value as never);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return (await q.limit(1).executeTakeFirst()) !== undefined;
  },

  async isActiveMember(db: Db, appId: string, userId: number): Promise<boolean> {
    const row = await db
      .selectFrom('members')
      .select('id')
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where('status', '=', 0)
      .executeTakeFirst();
    return row !== undefined;
  },
};
