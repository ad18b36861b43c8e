import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type QueryExecutorProvider as Executor, sql } from 'kysely';
import type { DialectName } from '../../src/db/dialect.ts';
import type { DatabaseHandle } from '../../src/db/handle.ts';
import { createDatabase } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { type FreshDatabase, freshDatabase } from './database.ts';

/**
 * The schema of a database as the migrations left it, in a form that compares as plain data:
 * tables with their columns (in order), keys, indexes and constraints, triggers, and on PostgreSQL
 * the functions and sequences. Definitions are the database's own text (SQLite's stored CREATE
 * statements, PostgreSQL's pg_get_*def), so two schemas that compare equal were built alike.
 */
export interface SchemaSnapshot {
  dialect: DialectName;
  tables: Record<string, TableSnapshot>;
  triggers: Record<string, { table: string; definition: string }>;
  /** PostgreSQL only. */
  functions?: Record<string, string>;
  /** PostgreSQL only. */
  sequences?: Record<string, { type: string; ownedBy: string | null }>;
}

export interface ColumnSnapshot {
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
}

export interface IndexSnapshot {
  columns: string[];
  unique: boolean;
  /** Partial index condition. */
  where?: string;
  /** SQLite: the CREATE INDEX text (none for the indexes behind PRIMARY KEY / UNIQUE); PostgreSQL: pg_get_indexdef. */
  definition?: string;
}

export interface TableSnapshot {
  columns: ColumnSnapshot[];
  primaryKey: string[];
  /** `columns -> table(columns)`. */
  foreignKeys: string[];
  indexes: Record<string, IndexSnapshot>;
  /** PostgreSQL: named constraints and their pg_get_constraintdef. */
  constraints?: Record<string, string>;
  /** PostgreSQL: storage parameters (fillfactor). */
  options?: string[];
  /** SQLite: the stored CREATE TABLE text. */
  definition?: string;
}

/**
 * Kysely's own bookkeeping tables. Left out: their shape is Kysely's, not the migrations', and a
 * Kysely upgrade that changed it would otherwise fail the migration checks.
 */
export const MIGRATOR_TABLES = ['rapport_migrations', 'rapport_migrations_lock'];

export async function introspectSchema(db: Executor, dialect: DialectName): Promise<SchemaSnapshot> {
  return dialect === 'sqlite' ? introspectSqlite(db) : introspectPostgres(db);
}

async function rows<R>(db: Executor, query: ReturnType<typeof sql<R>>): Promise<R[]> {
  return (await query.execute(db)).rows;
}

async function introspectSqlite(db: Executor): Promise<SchemaSnapshot> {
  const objects = await rows<{ type: string; name: string; tbl_name: string; sql: string | null }>(
    db,
    sql`select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by name`,
  );
  const tables: Record<string, TableSnapshot> = {};
  for (const t of objects) {
    if (t.type !== 'table' || MIGRATOR_TABLES.includes(t.name)) continue;
    const cols = await rows<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
      db,
      sql`select name, type, "notnull", dflt_value, pk from pragma_table_info(${t.name}) order by cid`,
    );
    const fks = await rows<{ id: number; table: string; from: string; to: string | null }>(
      db,
      sql`select id, "table", "from", "to" from pragma_foreign_key_list(${t.name}) order by id, seq`,
    );
    const byFk = new Map<number, { table: string; from: string[]; to: string[] }>();
    for (const fk of fks) {
      const entry = byFk.get(fk.id) ?? { table: fk.table, from: [], to: [] };
      entry.from.push(fk.from);
      entry.to.push(fk.to ?? '');
      byFk.set(fk.id, entry);
    }
    const indexes: Record<string, IndexSnapshot> = {};
    const list = await rows<{ name: string; unique: number; partial: number }>(
      db,
      sql`select name, "unique", partial from pragma_index_list(${t.name}) order by name`,
    );
    for (const ix of list) {
      const keys = await rows<{ name: string | null; desc: number }>(
        db,
        sql`select name, "desc" from pragma_index_xinfo(${ix.name}) where key = 1 order by seqno`,
      );
      const text = objects.find((o) => o.type === 'index' && o.name === ix.name)?.sql ?? null;
      const where = ix.partial ? /\swhere\s(.*)$/is.exec(text ?? '')?.[1]?.trim() : undefined;
      indexes[ix.name] = {
        columns: keys.map((k) => `${k.name ?? '<expression>'}${k.desc ? ' desc' : ''}`),
        unique: ix.unique === 1,
        ...(where !== undefined ? { where } : {}),
        ...(text !== null ? { definition: text } : {}),
      };
    }
    tables[t.name] = {
      columns: cols.map((c) => ({ name: c.name, type: c.type, nullable: c.notnull === 0, default: c.dflt_value })),
      primaryKey: cols
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      foreignKeys: [...byFk.values()].map((fk) => `${fk.from.join(', ')} -> ${fk.table}(${fk.to.join(', ')})`),
      indexes,
      definition: t.sql ?? '',
    };
  }
  const triggers: SchemaSnapshot['triggers'] = {};
  for (const o of objects) if (o.type === 'trigger') triggers[o.name] = { table: o.tbl_name, definition: o.sql ?? '' };
  return { dialect: 'sqlite', tables, triggers };
}

async function introspectPostgres(db: Executor): Promise<SchemaSnapshot> {
  const tableRows = await rows<{ oid: number; name: string; options: string[] | null }>(
    db,
    sql`select c.oid::int8 as oid, c.relname as name, c.reloptions as options from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`,
  );
  const tables: Record<string, TableSnapshot> = {};
  for (const t of tableRows) {
    if (MIGRATOR_TABLES.includes(t.name)) continue;
    const cols = await rows<{ name: string; type: string; notnull: boolean; default: string | null }>(
      db,
      sql`select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
            pg_get_expr(d.adbin, d.adrelid) as default
          from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
          where a.attrelid = ${t.oid}::oid and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    );
    const constraintRows = await rows<{ name: string; type: string; definition: string; columns: string[] }>(
      db,
      sql`select c.conname as name, c.contype::text as type, pg_get_constraintdef(c.oid) as definition,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
                  join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns
          from pg_constraint c where c.conrelid = ${t.oid}::oid order by c.conname`,
    );
    const indexRows = await rows<{ name: string; unique: boolean; where: string | null; definition: string; columns: string[] }>(
      db,
      sql`select ic.relname as name, i.indisunique as unique, pg_get_expr(i.indpred, i.indrelid) as where,
            pg_get_indexdef(i.indexrelid) as definition,
            array(select pg_get_indexdef(i.indexrelid, k.ord::int, true) from generate_series(1, i.indnkeyatts) k(ord)) as columns
          from pg_index i join pg_class ic on ic.oid = i.indexrelid
          where i.indrelid = ${t.oid}::oid order by ic.relname`,
    );
    const indexes: Record<string, IndexSnapshot> = {};
    for (const ix of indexRows) {
      indexes[ix.name] = {
        columns: ix.columns,
        unique: ix.unique,
        ...(ix.where !== null ? { where: ix.where } : {}),
        definition: ix.definition,
      };
    }
    tables[t.name] = {
      columns: cols.map((c) => ({ name: c.name, type: c.type, nullable: !c.notnull, default: c.default })),
      primaryKey: constraintRows.find((c) => c.type === 'p')?.columns ?? [],
      foreignKeys: constraintRows
        .filter((c) => c.type === 'f')
        .map((c) => {
          const m = /^FOREIGN KEY \((.*?)\) REFERENCES (.*)$/.exec(c.definition);
          return m ? `${m[1]} -> ${m[2]}` : c.definition;
        }),
      indexes,
      constraints: Object.fromEntries(constraintRows.map((c) => [c.name, c.definition])),
      options: t.options ?? [],
    };
  }
  const triggerRows = await rows<{ name: string; table: string; definition: string }>(
    db,
    sql`select t.tgname as name, c.relname as table, pg_get_triggerdef(t.oid) as definition
        from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and not t.tgisinternal order by t.tgname`,
  );
  const functionRows = await rows<{ name: string; definition: string }>(
    db,
    sql`select p.proname as name, pg_get_functiondef(p.oid) as definition
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' order by p.proname`,
  );
  const sequenceRows = await rows<{ name: string; type: string; owned_by: string | null }>(
    db,
    sql`select c.relname as name, format_type(s.seqtypid, null) as type,
            (select t.relname || '.' || a.attname from pg_depend d
               join pg_class t on t.oid = d.refobjid join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
             where d.objid = c.oid and d.classid = 'pg_class'::regclass and d.deptype in ('a', 'i')) as owned_by
        from pg_sequence s join pg_class c on c.oid = s.seqrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' order by c.relname`,
  );
  return {
    dialect: 'postgres',
    tables,
    triggers: Object.fromEntries(triggerRows.map((t) => [t.name, { table: t.table, definition: t.definition }])),
    functions: Object.fromEntries(functionRows.map((f) => [f.name, f.definition])),
    sequences: Object.fromEntries(
      sequenceRows
        .filter((s) => !MIGRATOR_TABLES.some((m) => s.owned_by?.startsWith(`${m}.`)))
        .map((s) => [s.name, { type: s.type, ownedBy: s.owned_by }]),
    ),
  };
}

export interface MigratedDatabase {
  fresh: FreshDatabase;
  handle: DatabaseHandle;
  /** The migrations the migrator applied. */
  applied: string[];
  close(): Promise<void>;
}

/** Opens the database `fresh` describes through the server's own code (src/db), without migrating. */
export function openDatabase(fresh: FreshDatabase): DatabaseHandle {
  return createDatabase({ databaseUrl: fresh.env.DATABASE_URL, dataDir: fresh.env.DATA_DIR ?? '' });
}

/** Runs the real migrator on an opened database. */
export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  return (await migrateToLatest(handle.db, handle.features.name)).applied;
}

/** A new, empty database of `dialect` brought to head by the real migrator; `close` drops it. */
export async function migratedDatabase(dialect: DialectName): Promise<MigratedDatabase> {
  const fresh = await freshDatabase(dialect);
  const handle = openDatabase(fresh);
  const close = async () => {
    await handle.close();
    await fresh.drop();
  };
  try {
    return { fresh, handle, applied: await migrate(handle), close };
  } catch (err) {
    await close();
    throw err;
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The checked-in snapshot of a freshly migrated database of one dialect. */
export function snapshotFile(dialect: DialectName): string {
  return path.join(root, 'test/fixtures', `schema-${dialect}.json`);
}

export function readSnapshot(dialect: DialectName): SchemaSnapshot {
  return JSON.parse(fs.readFileSync(snapshotFile(dialect), 'utf8')) as SchemaSnapshot;
}

/**
 * JSON with one line per column, index, trigger and sequence (then formatted by prettier, as the
 * repository's other JSON): a schema change shows in a review as the lines of the objects it changed.
 */
export function formatSnapshot(snapshot: SchemaSnapshot): string {
  const oneLine = (v: unknown): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(oneLine).join(', ')}]`;
    const entries = Object.entries(v);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`).join(', ')} }`;
  };
  // Records whose values each describe one object.
  const lineRecords = new Set(['indexes', 'triggers', 'sequences']);
  const write = (value: unknown, indent: string, ownKey: string, flat: boolean): string => {
    if (flat || value === null || typeof value !== 'object') return oneLine(value);
    const inner = `${indent}  `;
    if (Array.isArray(value)) {
      if (value.every((x) => x === null || typeof x !== 'object')) return oneLine(value);
      return `[\n${value.map((v) => inner + write(v, inner, '', true)).join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${write(v, inner, k, lineRecords.has(ownKey))}`);
    return `{\n${lines.join(',\n')}\n${indent}}`;
  };
  return `${write(snapshot, '', '', false)}\n`;
}

/** Where two schemas differ, as `table.part` / `kind name` labels (for failure messages). */
export function schemaDifferences(actual: SchemaSnapshot, expected: SchemaSnapshot): string[] {
  const out: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const compare = <T>(kind: string, a: Record<string, T> = {}, b: Record<string, T> = {}, parts?: (x: T) => Record<string, unknown>) => {
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = a[name];
      const y = b[name];
      if (x === undefined) out.push(`${kind} ${name} missing`);
      else if (y === undefined) out.push(`${kind} ${name} unexpected`);
      else if (parts) {
        const px = parts(x);
        const py = parts(y);
        for (const part of new Set([...Object.keys(px), ...Object.keys(py)]))
          if (!same(px[part], py[part])) out.push(`${kind} ${name}: ${part}`);
      } else if (!same(x, y)) out.push(`${kind} ${name}`);
    }
  };
  compare('table', actual.tables, expected.tables, (t) => ({ ...t }));
  compare('trigger', actual.triggers, expected.triggers);
  compare('function', actual.functions, expected.functions);
  compare('sequence', actual.sequences, expected.sequences);
  return out;
}
