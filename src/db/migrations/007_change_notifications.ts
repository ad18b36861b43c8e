import { type Kysely, sql } from 'kysely';

/**
 * Commits to the tables behind the in-process caches (ADR 0005: tokens and memberships, customer
 * list anchors) advance every process's change epoch of their topic: on SQLite through triggers
 * that count per topic, on PostgreSQL through statement triggers that NOTIFY the topic.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // The topics and their tables as released; later changes to them belong in a new migration.
  const topics: [string, string[]][] = [
    ['access', ['users', 'access_tokens', 'apps', 'members']],
    ['customers', ['customers']],
  ];
  if (dialect === 'sqlite') {
    // A counter per topic that the triggers bump inside the writing transaction.
    await sql`create table change_epoch (topic text primary key, n integer not null)`.execute(db);
    for (const [topic, tables] of topics) {
      await sql`insert into change_epoch (topic, n) values (${topic}, 0)`.execute(db);
      for (const table of tables) {
        for (const op of ['insert', 'update', 'delete']) {
          // SQLite keeps a trigger's text as written, line break and indentation included: kept as released.
          await sql
            .raw(
              `create trigger "${table}_${op}_change" after ${op} on "${table}"\n` +
                `            begin update change_epoch set n = n + 1 where topic = '${topic}'; end`,
            )
            .execute(db);
        }
      }
    }
    return;
  }
  // PostgreSQL keeps a function's body as written: its line break and indentation are kept as released.
  await sql
    .raw(
      'create or replace function rapport_notify_change() returns trigger language plpgsql as $$\n' +
        "      begin perform pg_notify('rapport_changes', tg_argv[0]); return null; end $$",
    )
    .execute(db);
  for (const [topic, tables] of topics) {
    for (const table of tables) {
      await sql
        .raw(
          `create trigger "${table}_notify_change" after insert or update or delete or truncate on "${table}"\n` +
            `          for each statement execute function rapport_notify_change('${topic}')`,
        )
        .execute(db);
    }
  }
}
