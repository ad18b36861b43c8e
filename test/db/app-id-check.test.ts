// lanes: sqlite postgres
/**
 * The app_id rule (docs/adr/0018-app-id-on-every-statement.md): every table is classified, and on
 * PostgreSQL every statement over a project table names its project, or is one of the few tagged
 * cross-project ones. The whole PostgreSQL suite runs with the check on; these tests check the
 * checker itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Insertable, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AppIdCheckError,
  CROSS_PROJECT,
  TABLE_SCOPE,
  analyzeStatement,
  appIdViolation,
  crossProject,
  takeAppIdViolations,
  withoutAppIdCheck,
} from '../../src/db/app-id-check.ts';
import {
  type BehaviourTotalsTable,
  type DatabaseHandle,
  bulkOps,
  createDatabase,
  migrateToLatest,
  preparedQuery,
} from '../../src/db/index.ts';
import { type FreshDatabase, TEST_DIALECT, freshDatabase } from '../helpers/database.ts';
import { startTestServer } from '../helpers/harness.ts';
import { MIGRATOR_TABLES, type SchemaSnapshot, introspectSchema, migratedDatabase, readSnapshot } from '../helpers/schema.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

function tablesOf(snapshot: SchemaSnapshot): string[] {
  return [...Object.keys(snapshot.tables), ...MIGRATOR_TABLES].sort();
}

describe('TABLE_SCOPE', () => {
  let migrated: SchemaSnapshot;

  beforeAll(async () => {
    const database = await migratedDatabase(TEST_DIALECT);
    try {
      migrated = await introspectSchema(database.handle.db, TEST_DIALECT);
    } finally {
      await database.close();
    }
  });

  it(`classifies every table of a migrated ${TEST_DIALECT} database, and no other`, () => {
    const classified = Object.keys(TABLE_SCOPE).filter((t) => TEST_DIALECT === 'sqlite' || t !== 'change_epoch');
    expect(classified.sort()).toEqual(tablesOf(migrated));
  });

  it("classifies every table of both dialects' schema snapshots", () => {
    const all = new Set([...tablesOf(readSnapshot('sqlite')), ...tablesOf(readSnapshot('postgres'))]);
    expect(Object.keys(TABLE_SCOPE).sort()).toEqual([...all].sort());
  });

  it('finds the project column NOT NULL in every project table, and no app_id in a global one', () => {
    for (const [table, scope] of Object.entries(TABLE_SCOPE)) {
      const columns = migrated.tables[table]?.columns ?? [];
      if (scope.scope === 'project') {
        const column = columns.find((c) => c.name === scope.column);
        expect(column, `${table}.${scope.column}`).toBeDefined();
        // SQLite reports a text primary key as nullable: the key stands for NOT NULL there.
        const key = migrated.tables[table]?.primaryKey ?? [];
        expect(column?.nullable === false || (key.length === 1 && key[0] === scope.column), `${table}.${scope.column} NOT NULL`).toBe(true);
      } else {
        expect(
          columns.map((c) => c.name),
          table,
        ).not.toContain('app_id');
      }
    }
  });
});

describe('CROSS_PROJECT', () => {
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) sources.push(fs.readFileSync(file, 'utf8'));
    }
  };
  walk(path.join(ROOT, 'src'));

  it('holds only keys some statement of src/ is tagged with, each with its reason', () => {
    for (const [key, why] of Object.entries(CROSS_PROJECT)) {
      expect(
        sources.some((s) => s.includes(`crossProject('${key}')`)),
        key,
      ).toBe(true);
      expect(why.length).toBeGreaterThan(40);
    }
  });
});

describe('a statement', () => {
  const keeps = [
    ['a project column equal to a value', 'select * from "customers" where "app_id" = $1 and "id" = $2'],
    ['an alias of the table', 'select "c"."id" from "customers" as "c" where "c"."app_id" = $1'],
    ['a project given as a list', 'select * from "customers" where "app_id" in (select unnest($1::text[])) and "id" = $2'],
    ['the project as the value on the left', 'select * from "calls" where $1 = "app_id"'],
    [
      'a join on the project column to a table that names it',
      'select * from "customer_groups" as "g" left join "customers" as "c" on "c"."group_id" = "g"."id" and "c"."app_id" = "g"."app_id" where "g"."app_id" = $1',
    ],
    [
      'the project table itself, by id, joined to its members',
      'select * from "apps" left join "members" on "members"."app_id" = "apps"."id" and "members"."user_id" = $1 where "apps"."id" = $2',
    ],
    [
      'a correlated subquery joined on the project column',
      'select "c".*, (select sum("t"."count") from "behaviour_totals" as "t" where "t"."app_id" = "c"."app_id" and "t"."customer_id" = "c"."id") as "n" from "customers" as "c" where "c"."app_id" = $1',
    ],
    [
      'a subquery of a derived table joined to it',
      'select "k".*, (select count(*) from "customers" as "c" where "c"."app_id" = "k"."app_id") from (select * from "calls" where "app_id" = $1) as "k"',
    ],
    [
      'an insert naming the column',
      'insert into "behaviour_totals" ("app_id", "customer_id", "kind", "key", "count") select "app_id", "customer_id", "kind", "key", "count" from json_populate_recordset(null::"behaviour_totals", $1) on conflict ("app_id", "customer_id", "kind", "key") do update set "count" = "behaviour_totals"."count" + excluded."count"',
    ],
    ['an update by project and key', 'update "members" set "status" = $1 where "app_id" = $2 and "id" = $3 returning *'],
    ['a delete by project', 'delete from "webhook_deliveries" where "app_id" = $1 and "webhook_id" = $2'],
    [
      'global tables only',
      'select * from "access_tokens" inner join "users" on "users"."id" = "access_tokens"."user_id" where "token_hash" = $1',
    ],
    ['a WITH query', 'with "page" as (select * from "behaviour_logs" where "app_id" = $1 and "customer_id" = $2) select * from "page"'],
    [
      "a coalesced read's unnested arguments",
      'select rapport_args.i, (select json_agg(s.r) from (select json_build_array("r"."id") as r from (select "id" from "customers" where "app_id" = "rapport_args"."a0" and "id" = "rapport_args"."a1") as r) as s) as rs from unnest($1::text[], $2::text[]) with ordinality as rapport_args("a0", "a1", i)',
    ],
    ['schema changes', 'alter table "customers" add column "x" text'],
    ['transaction control', 'begin'],
    ['the catalogue', 'select parameter_types::text[] as types from pg_prepared_statements where name = $1'],
    ['a tagged cross-project read', 'select * from "outbox" where "seq" > $1 order by "seq" limit $2 /* cross-project: event-relay */'],
    [
      'a tagged cross-project read with its joins on the project column',
      'select min("d"."id") from "webhook_deliveries" as "d" inner join "webhooks" as "w" on "w"."app_id" = "d"."app_id" and "w"."id" = "d"."webhook_id" /* cross-project: event-relay */',
    ],
  ] as const;

  const breaks = [
    ['a read by id alone', 'select * from "customers" where "id" = $1', 'customers without app_id'],
    ['app_id only selected', 'select "app_id" from "customers" where "id" = $1', 'customers without app_id'],
    ['app_id compared with something else', 'select * from "customers" where "app_id" != $1', 'customers without app_id'],
    ['app_id named in a SET, not a condition', 'update "customers" set "app_id" = $1 where "id" = $2', 'customers without app_id'],
    ['NOT IN', 'select * from "clues" where "app_id" not in ($1)', 'clues without app_id'],
    [
      'a joined table left out',
      'select * from "links" as "l" inner join "clues" as "c" on "c"."link_id" = "l"."id" where "l"."app_id" = $1',
      'clues without app_id',
    ],
    [
      "another alias's project column",
      'select * from "links" as "l", "links" as "m" where "l"."app_id" = $1 and "m"."id" = "l"."id"',
      'links without app_id',
    ],
    [
      'a subquery that does not name it',
      'select "c".*, (select sum("t"."count") from "behaviour_totals" as "t" where "t"."customer_id" = "c"."id") from "customers" as "c" where "c"."app_id" = $1',
      'behaviour_totals without app_id',
    ],
    [
      'an insert without the column',
      'insert into "behaviour_rollups" ("customer_id", "day") values ($1, $2)',
      'behaviour_rollups without app_id',
    ],
    ['a delete of everything', 'delete from "webhooks"', 'webhooks without app_id'],
    [
      'one UNION branch without it',
      'select "id" from "calls" where "app_id" = $1 union all select "id" from "calls" where "id" = $2',
      'calls without app_id',
    ],
    ['a table nobody classified', 'select * from "invoices" where "app_id" = $1', 'TABLE_SCOPE does not classify (invoices)'],
    ['an unknown cross-project key', 'select * from "outbox" /* cross-project: because */', 'unknown cross-project key "because"'],
    [
      'a cross-project tag it does not need',
      'select * from "outbox" where "app_id" = $1 /* cross-project: event-relay */',
      'cross-project tag "event-relay" on a statement that names its project',
    ],
    [
      'a cross-project statement joining without the project column',
      'select * from "webhook_deliveries" as "d" inner join "webhooks" as "w" on "w"."id" = "d"."webhook_id" /* cross-project: event-relay */',
      'not joined on app_id',
    ],
  ] as const;

  for (const [what, text] of keeps) {
    it(`keeps the rule: ${what}`, () => {
      expect(appIdViolation(text)).toBeNull();
    });
  }
  for (const [what, text, reason] of breaks) {
    it(`breaks the rule: ${what}`, () => {
      expect(appIdViolation(text)).toContain(reason);
    });
  }

  it('is read per table reference: calls joined to links on app_id, clues on its own', () => {
    expect(
      analyzeStatement(
        'select * from "links" as "l" inner join "clues" as "c" on "c"."link_id" = "l"."id" inner join "calls" as "k" on "k"."app_id" = "l"."app_id"',
      ),
    ).toMatchObject({ unconstrained: ['calls', 'clues', 'links'], unconstrainedGroups: 2 });
  });
});

describe.runIf(TEST_DIALECT === 'postgres')('the check on PostgreSQL', () => {
  let fresh: FreshDatabase;
  let database: DatabaseHandle;
  const APP = 'app-check';

  beforeAll(async () => {
    fresh = await freshDatabase();
    database = createDatabase({ databaseUrl: fresh.env.DATABASE_URL, dataDir: '', appIdCheck: true });
    await migrateToLatest(database.db, 'postgres');
    await database.db
      .insertInto('users')
      .values({ id: 1, password_hash: 'x', email_status: 0, phone_num_status: 0, cc_num: 0, status: 0, created_at: 1, updated_at: 1 })
      .execute();
    await database.db
      .insertInto('apps')
      .values({ id: APP, creator_id: 1, name: 'Check', secret: 's', status: 0, create_time: 1, edit_time: 1 })
      .execute();
    await database.db
      .insertInto('customers')
      .values({ id: 'c1', app_id: APP, owner_id: 1, name: 'Before', status: 1, is_new: 1, created_at: 1, updated_at: 1 })
      .execute();
  });

  afterEach(() => {
    // What these tests provoke on purpose; anything else fails the file at its end.
    takeAppIdViolations();
  });

  afterAll(async () => {
    await database?.close();
    await fresh?.drop();
  });

  const refused = async (run: Promise<unknown>, reason: string) => {
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppIdCheckError);
    expect((error as AppIdCheckError).message).toContain(reason);
    expect((error as AppIdCheckError).statement).toMatch(/^(select|update|insert|delete) /);
  };

  it('fails a Kysely statement without app_id before sending it, and runs one with it', async () => {
    await refused(database.db.updateTable('customers').set({ name: 'After' }).where('id', '=', 'c1').execute(), 'customers without app_id');
    const row = await database.db
      .selectFrom('customers')
      .select('name')
      .where('app_id', '=', APP)
      .where('id', '=', 'c1')
      .executeTakeFirst();
    expect(row?.name).toBe('Before');
    expect(takeAppIdViolations()).toEqual([expect.stringContaining('update "customers" set "name" = $1 where "id" = $2')]);
  });

  it("fails the prepared reader's named statement", async () => {
    const byId = preparedQuery('testCheckById', ({ db }, id: string) => db.selectFrom('customers').select('name').where('id', '=', id));
    const scoped = preparedQuery('testCheckScoped', ({ db, projectIs }, appId: string, id: string) =>
      db.selectFrom('customers').select('name').where('id', '=', id).where(projectIs('app_id', appId)),
    );
    await refused(database.reader.first(byId, 'c1'), 'customers without app_id');
    expect(await database.reader.first(scoped, APP, 'c1')).toEqual({ name: 'Before' });
  });

  it('fails a bulk write written as text', async () => {
    const rows = [{ customer_id: 'c1', kind: 'action', key: 'create', count: 1 }] as unknown as Insertable<BehaviourTotalsTable>[];
    await refused(bulkOps(database.features).insert(database.db, 'behaviour_totals', rows), 'behaviour_totals without app_id');
    await bulkOps(database.features).insert(database.db, 'behaviour_totals', [
      { app_id: APP, customer_id: 'c1', kind: 'action', key: 'create', count: 1 },
    ]);
  });

  it('fails raw SQL, and lets a tagged cross-project statement through', async () => {
    await refused(sql`select count(*) from customers`.execute(database.db), 'customers without app_id');
    const all = await database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .modifyEnd(crossProject('record-by-id'))
      .executeTakeFirstOrThrow();
    expect(Number(all.n)).toBe(1);
  });

  it("is on in the suite's own servers", async () => {
    expect(process.env.RAPPORT_APP_ID_CHECK).toBe('1');
    const server = await startTestServer();
    try {
      expect(server.ctx.config.appIdCheck).toBe(true);
      await refused(server.ctx.database.db.selectFrom('customers').selectAll().execute(), 'customers without app_id');
    } finally {
      await server.close();
    }
  });

  it('exempts what runs inside withoutAppIdCheck (migrations)', async () => {
    const n = await withoutAppIdCheck(() => sql<{ n: string }>`select count(*) as n from customers`.execute(database.db));
    expect(Number(n.rows[0]?.n)).toBe(1);
    expect(takeAppIdViolations()).toEqual([]);
  });
});
