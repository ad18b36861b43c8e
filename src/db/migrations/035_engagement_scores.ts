import { type Kysely, sql } from 'kysely';

/**
 * Engagement scores and hot leads (docs/scoring.md, ADR 0038).
 *
 * - `customers.score_key`: the customer's score as a key that orders customers as their decayed
 *   scores do at any time, log2(score at its reference time) + reference time / half-life; 0 for no
 *   score. `customers.score_rise_at`: when the score last rose (epoch ms; 0 for never). Both kept at
 *   write time by ingestion's write path; each has one index in the shape of the list's (project,
 *   status, key, id), with the owner last so that one member's customers are told apart in the index
 *   (a score moves with every point: one index each, not one per scope); the rise's is partial (only
 *   customers whose score ever rose).
 * - `score_settings`: a project's scoring rules (JSON; no row: the defaults), and where the
 *   background job `scores` stands in recomputing the project's customers from their records
 *   (`recompute_from`: the last customer id done, '' to start, null when nothing is to do). Every
 *   project that exists when this runs gets a row to recompute, so an upgraded server scores its
 *   customers from the records it already holds.
 * - `customer_scores`: per customer, the score at its reference time, the last rise, the reasons
 *   (its top contributions, JSON), the last signal (JSON) and the marks the rules need (JSON: the
 *   latest link view, the recent readings and what they earned).
 * - The change topic `scoring` (the in-process cache of the rules): triggers on `score_settings`,
 *   as migration 007's.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  await sql.raw(`alter table customers add column score_key ${real} not null default 0`).execute(db);
  await sql`alter table customers add column score_rise_at bigint not null default 0`.execute(db);
  for (const [name, columns, where] of [
    ['customers_app_score_idx', 'app_id, status, score_key, id, owner_id', ''],
    ['customers_app_rise_idx', 'app_id, status, score_rise_at, id, owner_id', ' where score_rise_at > 0'],
  ] as const) {
    await sql.raw(`create index ${name} on customers (${columns})${where}`).execute(db);
  }

  await sql`create table score_settings (
    app_id text primary key,
    rules text not null,
    recompute_from text,
    updated_by bigint,
    updated_at bigint not null
  )`.execute(db);
  await sql`insert into score_settings (app_id, rules, recompute_from, updated_by, updated_at) select id, '{}', '', null, 0 from apps`.execute(
    db,
  );
  await sql`create index score_settings_recompute_idx on score_settings (recompute_from) where recompute_from is not null`.execute(db);

  await sql
    .raw(
      `create table customer_scores (
    app_id text not null,
    customer_id text not null,
    value ${real} not null,
    ref_at bigint not null,
    rise ${real} not null,
    rise_at bigint not null,
    reasons text not null,
    last_signal text,
    marks text not null,
    updated_at bigint not null,
    primary key (app_id, customer_id)
  )`,
    )
    .execute(db);

  if (dialect === 'sqlite') {
    await sql`insert into change_epoch (topic, n) values ('scoring', 0)`.execute(db);
    for (const op of ['insert', 'update', 'delete']) {
      await sql
        .raw(
          `create trigger "score_settings_${op}_change" after ${op} on "score_settings"\n  begin update change_epoch set n = n + 1 where topic = 'scoring'; end`,
        )
        .execute(db);
    }
    return;
  }
  // Rewritten on every scoring batch: room in its pages so that the updates are heap-only.
  await sql`alter table customer_scores set (fillfactor = 70)`.execute(db);
  await sql
    .raw(
      `create trigger "score_settings_notify_change" after insert or update or delete or truncate on "score_settings"\n` +
        `  for each statement execute function rapport_notify_change('scoring')`,
    )
    .execute(db);
}
