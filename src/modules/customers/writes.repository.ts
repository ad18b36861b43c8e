/**
 * The customers' SQL of the create path (create-path.ts: uniqueness, whetherMerge, the bulk insert),
 * of the write path's look-up by contact (write-path.service.ts) and of a field made unique
 * (fields.ts). The API's reads and writes are in repository.ts.
 */
import {
  bulkOps,
  type PreparedReader,
  preparedQuery,
  type CustomersTable,
  type CustomerFieldValuesTable,
  type Database,
  type DialectFeatures,
} from '../../db/index.ts';
import { type Kysely, sql } from 'kysely';
import type { CustomerRow } from './mapper.ts';
import { LOOKUP_CHUNK } from './repository.ts';

type Db = Kysely<Database>;

/** What a uniqueness question is about: a column of the customer, or a custom field (`field:<name>`). */
export type UniqueKey = keyof CustomersTable | `field:${string}`;

const fieldOf = (key: UniqueKey): string | null => (key.startsWith('field:') ? key.slice('field:'.length) : null);

const twinColumns = ['id', 'owner_id', 'phone_key', 'email_lower', 'status'] as const;
// One seek per index (phone key, e-mail); status is checked on the rows so that the phone key and e-mail
// indexes stay the planner's obvious choice.
const twinsByPhone = preparedQuery('customerTwinsByPhone', ({ db, inList }, appId: string, phones: string[]) =>
  db
    .selectFrom('customers')
    .select(twinColumns)
    .where('app_id', '=', appId)
    .where(inList('phone_key', phones, 'text')),
);
const twinsByEmail = preparedQuery('customerTwinsByEmail', ({ db, inList }, appId: string, emails: string[]) =>
  db
    .selectFrom('customers')
    .select(twinColumns)
    .where('app_id', '=', appId)
    .where(inList('email_lower', emails, 'text')),
);

export const customerWritesRepository = {
  /** Owners' live customers sharing a phone or e-mail with the given ones: the base of whetherMerge. */
  async duplicates(reader: PreparedReader, appId: string, rows: CustomerRow[]): Promise<Set<string>> {
    const phones = [...new Set(rows.map((r) => r.phone_key).filter((v): v is string => !!v))];
    const emails = [...new Set(rows.map((r) => r.email_lower).filter((v): v is string => !!v))];
    if (phones.length === 0 && emails.length === 0) return new Set();
    const [byPhone, byEmail] = await Promise.all([
      phones.length ? reader.all(twinsByPhone, appId, phones) : [],
      emails.length ? reader.all(twinsByEmail, appId, emails) : [],
    ]);
    const others = [...byPhone, ...byEmail].filter((o) => o.status === 1);
    const merge = new Set<string>();
    for (const r of rows) {
      const twin = others.some(
        (o) =>
          o.id !== r.id &&
          o.owner_id === r.owner_id &&
          ((r.phone_key && o.phone_key === r.phone_key) || (r.email_lower && o.email_lower === r.email_lower)),
      );
      if (twin) merge.add(r.id);
    }
    return merge;
  },

  /** Which of these values live customers of the project already have in a column or custom field (as text). */
  async liveValues(db: Db, appId: string, key: UniqueKey, values: (string | number)[]): Promise<Set<string>> {
    const found = new Set<string>();
    const field = fieldOf(key);
    if (field !== null) {
      for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
        const rows = await db
          .selectFrom('customer_field_values as v')
          .innerJoin('customers as c', (j) => j.onRef('c.app_id', '=', 'v.app_id').onRef('c.id', '=', 'v.customer_id'))
          .select('v.value')
          .where('v.app_id', '=', appId)
          .where('c.app_id', '=', appId)
          .where('v.name', '=', field)
          .where('v.value', 'in', values.slice(i, i + LOOKUP_CHUNK).map(String))
          .where('c.status', '=', 1)
          .execute();
        for (const r of rows) found.add(r.value);
      }
      return found;
    }
    const column = key as keyof CustomersTable;
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
  ): Promise<{ owner_id: number; phone_key: string | null; email_lower: string | null }[]> {
    const phones = [...new Set(rows.map((r) => r.phone_key).filter((v): v is string => !!v))];
    const emails = [...new Set(rows.map((r) => r.email_lower).filter((v): v is string => !!v))];
    const cols = ['owner_id', 'phone_key', 'email_lower', 'status'] as const;
    const out: { owner_id: number; phone_key: string | null; email_lower: string | null; status: number }[] = [];
    // One seek per value and index (phone key, e-mail), as in duplicates.
    for (let i = 0; i < phones.length; i += LOOKUP_CHUNK) {
      const part = phones.slice(i, i + LOOKUP_CHUNK);
      out.push(...(await db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('phone_key', 'in', part).execute()));
    }
    for (let i = 0; i < emails.length; i += LOOKUP_CHUNK) {
      const part = emails.slice(i, i + LOOKUP_CHUNK);
      out.push(...(await db.selectFrom('customers').select(cols).where('app_id', '=', appId).where('email_lower', 'in', part).execute()));
    }
    return out.filter((o) => o.status === 1);
  },

  /**
   * The live customer of the project a form's contact details name: by mobile number (its key) first,
   * else by e-mail (case-insensitively); the oldest when several share it.
   */
  async liveByContact(db: Db, appId: string, phoneKey: string | null, emailLower: string | null): Promise<CustomerRow | undefined> {
    for (const [column, value] of [
      ['phone_key', phoneKey],
      ['email_lower', emailLower],
    ] as const) {
      if (value === null || value === '') continue;
      const found = await db
        .selectFrom('customers')
        .selectAll()
        .where('app_id', '=', appId)
        .where(column, '=', value)
        .where('status', '=', 1)
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (found) return found;
    }
    return undefined;
  },

  async isTaken(db: Db, appId: string, key: UniqueKey, value: string | number, exceptId: string | undefined): Promise<boolean> {
    const field = fieldOf(key);
    if (field !== null) {
      let f = db
        .selectFrom('customer_field_values as v')
        .innerJoin('customers as c', (j) => j.onRef('c.app_id', '=', 'v.app_id').onRef('c.id', '=', 'v.customer_id'))
        .select('v.customer_id')
        .where('v.app_id', '=', appId)
        .where('c.app_id', '=', appId)
        .where('v.name', '=', field)
        .where('v.value', '=', String(value))
        .where('c.status', '=', 1);
      if (exceptId !== undefined) f = f.where('v.customer_id', '!=', exceptId);
      return (await f.limit(1).executeTakeFirst()) !== undefined;
    }
    const column = key as keyof CustomersTable;
    let q = db
      .selectFrom('customers')
      .select('id')
      .where('app_id', '=', appId)
      .where('status', '=', 1)
      .where(column, '=', value as never);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return (await q.limit(1).executeTakeFirst()) !== undefined;
  },
};

/**
 * Values live customers of the project share in a column or custom field: up to `limit` such
 * values, each with the customers holding it (the refusal to make a field unique names them).
 */
export async function duplicateValues(
  db: Db,
  appId: string,
  key: UniqueKey,
  limit: number,
): Promise<{ value: string; customerIds: string[] }[]> {
  const field = fieldOf(key);
  const held =
    field !== null
      ? await db
          .selectFrom('customer_field_values as v')
          .innerJoin('customers as c', (j) => j.onRef('c.app_id', '=', 'v.app_id').onRef('c.id', '=', 'v.customer_id'))
          .select(['v.value as value', 'c.id as id'])
          .where('v.app_id', '=', appId)
          .where('c.app_id', '=', appId)
          .where('v.name', '=', field)
          .where('c.status', '=', 1)
          .where('v.value', 'in', (eb) =>
            eb
              .selectFrom('customer_field_values as w')
              .innerJoin('customers as d', (j) => j.onRef('d.app_id', '=', 'w.app_id').onRef('d.id', '=', 'w.customer_id'))
              .select('w.value')
              .where('w.app_id', '=', appId)
              .where('d.app_id', '=', appId)
              .where('w.name', '=', field)
              .where('d.status', '=', 1)
              .groupBy('w.value')
              .having((e) => e.fn.countAll(), '>', 1)
              .orderBy('w.value')
              .limit(limit),
          )
          .orderBy('v.value')
          .orderBy('c.id')
          .execute()
      : await columnDuplicates(db, appId, key as keyof CustomersTable, limit);
  const out = new Map<string, string[]>();
  for (const r of held) {
    const v = String(r.value);
    const ids = out.get(v) ?? [];
    ids.push(r.id);
    out.set(v, ids);
  }
  return [...out].map(([value, customerIds]) => ({ value, customerIds }));
}

async function columnDuplicates(db: Db, appId: string, column: keyof CustomersTable, limit: number) {
  const values = await db
    .selectFrom('customers')
    .select(sql<string>`${sql.ref(column)}`.as('value'))
    .where('app_id', '=', appId)
    .where('status', '=', 1)
    .where(column, 'is not', null)
    .groupBy(column)
    .having((e) => e.fn.countAll(), '>', 1)
    .orderBy(column)
    .limit(limit)
    .execute();
  if (values.length === 0) return [];
  return db
    .selectFrom('customers')
    .select([sql<string>`${sql.ref(column)}`.as('value'), 'id'])
    .where('app_id', '=', appId)
    .where('status', '=', 1)
    .where(column, 'in', values.map((v) => v.value) as never[])
    .orderBy(column)
    .orderBy('id')
    .execute();
}

/** Bulk writes of new customers (one statement per table and chunk; see db/bulk.ts). */
export function createCustomerWrites(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** New customers and their custom values (their records and events are written by their owners' services). */
    async insertCreated(trx: Db, customers: CustomerRow[], fieldValues: CustomerFieldValuesTable[]): Promise<void> {
      await bulk.insert(trx, 'customers', customers);
      if (fieldValues.length > 0) await bulk.insert(trx, 'customer_field_values', fieldValues);
    },
  };
}
