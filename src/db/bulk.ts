import { type Insertable, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
type Table = keyof Database & string;
type Value = string | number | boolean | null;

/**
 * Bulk writes and id-list lookups, written once per capability (issue 5: ingestion batches of
 * 1000 records). Where a whole array binds as one parameter (PostgreSQL), rows go in through
 * `unnest` of one array per column and lookups use `= any($1)`: a statement with 25 parameters
 * instead of 25,000 parses, plans and binds several times faster. Elsewhere (SQLite) rows go in
 * as multi-row VALUES chunked under the parameter limit, whose statements the SQLite connection
 * reuses from its cache.
 */
export interface BulkOps {
  insert<T extends Table>(db: Db, table: T, rows: Insertable<Database[T]>[]): Promise<void>;
  /**
   * Inserts rows; a row whose `key` columns match a stored row adds its `counter` to the stored
   * value instead (rows must already be aggregated per key).
   */
  insertOrAdd<T extends Table>(db: Db, table: T, rows: Insertable<Database[T]>[], key: string[], counter: string): Promise<void>;
  /** `column IN (values)`: true for none of an empty list. */
  anyOf(column: string, values: readonly Value[]): RawBuilder<SqlBool>;
  /** Splits values for anyOf so no statement exceeds the parameter limit. */
  lookupChunks<T>(values: T[]): T[][];
}

function columnsOf(rows: object[]): string[] {
  return Object.keys(rows[0] as object);
}

function chunk<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

const ident = (name: string) => sql.id(name);

export function bulkOps(features: DialectFeatures): BulkOps {
  if (features.arrayParameters) return arrayBulkOps();
  return valuesBulkOps(features.maxParameters);
}

function valuesBulkOps(maxParameters: number): BulkOps {
  const rowsPerStatement = (columns: number) => Math.max(1, Math.min(1000, Math.floor(maxParameters / columns)));
  return {
    async insert(db, table, rows) {
      if (rows.length === 0) return;
      for (const part of chunk(rows, rowsPerStatement(columnsOf(rows).length))) {
        // Kysely cannot relate a generic table to its insert shape; the signature already does.
        await db
          .insertInto(table)
          .values(part as never)
          .execute();
      }
    },
    async insertOrAdd(db, table, rows, key, counter) {
      if (rows.length === 0) return;
      for (const part of chunk(rows, rowsPerStatement(columnsOf(rows).length))) {
        await db
          .insertInto(table)
          .values(part as never)
          .onConflict((oc) =>
            oc
              .columns(key as never)
              .doUpdateSet({ [counter]: sql`${sql.ref(`${table}.${counter}`)} + excluded.${ident(counter)}` } as never),
          )
          .execute();
      }
    },
    anyOf(column, values) {
      if (values.length === 0) return sql<SqlBool>`1 = 0`;
      return sql<SqlBool>`${sql.ref(column)} in (${sql.join(values.map((v) => sql.val(v)))})`;
    },
    lookupChunks(values) {
      return chunk(values, Math.max(1, maxParameters - 100));
    },
  };
}

function arrayBulkOps(): BulkOps {
  // Element types of each table's columns, read once from the catalogue, for the unnest casts.
  const types = new Map<string, Promise<Map<string, string>>>();
  const typesOf = (db: Db, table: string) => {
    let t = types.get(table);
    if (!t) {
      t = sql<{ column_name: string; udt_name: string }>`select column_name, udt_name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`
        .execute(db)
        .then((r) => new Map(r.rows.map((c) => [c.column_name, c.udt_name])));
      types.set(table, t);
    }
    return t;
  };
  async function unnestSelect(db: Db, table: string, rows: object[]) {
    const columns = columnsOf(rows);
    const udt = await typesOf(db, table);
    const arrays = columns.map((c) => {
      const type = udt.get(c);
      if (type === undefined) throw new Error(`bulk insert: ${table}.${c} is not a column`);
      const values = rows.map((r) => {
        const v = (r as Record<string, unknown>)[c];
        return v === undefined ? null : v;
      });
      return sql`${sql.val(values)}::${sql.raw(`${type}[]`)}`;
    });
    return { columns, select: sql`select * from unnest(${sql.join(arrays)})` };
  }
  // Arrays are one parameter each, but a huge statement still costs memory: stay at 5,000 rows.
  const ROWS = 5000;
  return {
    async insert(db, table, rows) {
      for (const part of chunk(rows, ROWS)) {
        if (part.length === 0) continue;
        const { columns, select } = await unnestSelect(db, table, part);
        await sql`insert into ${ident(table)} (${sql.join(columns.map(ident))}) ${select}`.execute(db);
      }
    },
    async insertOrAdd(db, table, rows, key, counter) {
      for (const part of chunk(rows, ROWS)) {
        if (part.length === 0) continue;
        const { columns, select } = await unnestSelect(db, table, part);
        await sql`insert into ${ident(table)} (${sql.join(columns.map(ident))}) ${select}
          on conflict (${sql.join(key.map(ident))}) do update set ${ident(counter)} = ${sql.ref(`${table}.${counter}`)} + excluded.${ident(counter)}`.execute(
          db,
        );
      }
    },
    anyOf(column, values) {
      if (values.length === 0) return sql<SqlBool>`false`;
      // `= any($1)` is estimated at the array's full length and often planned as a sequential
      // scan; a sub-select of unnest (estimated at 100 rows) is planned as index probes.
      const type = values.every((v) => typeof v === 'number') ? 'int8[]' : 'text[]';
      return sql<SqlBool>`${sql.ref(column)} in (select unnest(${sql.val(values)}::${sql.raw(type)}))`;
    },
    lookupChunks(values) {
      return chunk(values, 50_000);
    },
  };
}
