import { type Kysely, sql } from 'kysely';

/**
 * Editable customer fields (docs/metadata.md): a project's attributes may be hidden (removed from the
 * form, their stored values kept) and marked searchable; custom attributes' values are also kept one
 * row per value in `customer_field_values`, so that uniqueness, search and the duplicate report are
 * index seeks rather than reads of every customer's `ext` JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table customer_metadata add column hidden integer not null default 0`.execute(db);
  await sql`alter table customer_metadata add column searchable integer not null default 0`.execute(db);
  await sql`create table customer_field_values (
    app_id text not null references apps(id),
    customer_id text not null,
    name text not null,
    value text not null,
    value_lower text not null,
    constraint customer_field_values_pk primary key (app_id, customer_id, name, value)
  )`.execute(db);
  // Who else has this value (uniqueness, duplicates) and exact filters.
  await sql`create index customer_field_values_value_idx on customer_field_values (app_id, name, value)`.execute(db);

  // Extension values stored before: one row per value, as the server now writes them.
  const rows = await sql<{ app_id: string; id: string; ext: string }>`select app_id, id, ext from customers where ext is not null`.execute(
    db,
  );
  for (const r of rows.rows) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.ext);
    } catch {
      continue;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) continue;
    for (const [name, v] of Object.entries(parsed as Record<string, unknown>)) {
      const values = Array.isArray(v) ? v : [v];
      for (const value of new Set(values.filter((x) => x !== null && x !== undefined && x !== '').map(String))) {
        await sql`insert into customer_field_values (app_id, customer_id, name, value, value_lower)
          values (${r.app_id}, ${r.id}, ${name}, ${value}, ${value.toLowerCase()})`.execute(db);
      }
    }
  }
}
