import { type Kysely, sql } from 'kysely';

/**
 * Phone numbers read against a project's region (docs/customers.md, "Phone numbers";
 * ADR 0034):
 *
 * - `apps.region`: the project's ISO 3166-1 alpha-2 region; every project made before it reads its
 *   numbers as China's, as the original platform did ('CN').
 * - `customers.phone_key`: the mobile number in international form (E.164), which search,
 *   duplicates, whetherMerge, imports and the viewer's form match by, with its index in the list
 *   order (as `customers_phone_idx` was, which nothing reads any more). Existing customers get their
 *   key from the server's background job `phone-keys` (the key needs libphonenumber, which a frozen
 *   migration does not import); the partial index finds the customers still without one.
 * - The seeded age bands skipped 40–50 (…, 3 "30-40", 4 "50-60", …): value 4 is labelled "40-60"
 *   where a project still has the seeded options, so that the bands are contiguous and a customer
 *   stored as 4 (50–60) is still in its band. Values keep their numbers (-1..5).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table apps add column region text not null default 'CN'`.execute(db);
  await sql`alter table customers add column phone_key text`.execute(db);
  await sql`create index customers_phone_key_idx on customers (app_id, phone_key, status, updated_at, id)`.execute(db);
  await sql`create index customers_phone_key_pending_idx on customers (app_id) where phone is not null and phone_key is null`.execute(db);
  await sql`drop index customers_phone_idx`.execute(db);
  const seeded =
    '[{"value":"-1","label":"未选择"},{"value":"0","label":"0-18"},{"value":"1","label":"18-25"},{"value":"2","label":"25-30"},' +
    '{"value":"3","label":"30-40"},{"value":"4","label":"50-60"},{"value":"5","label":"60-"}]';
  const contiguous = seeded.replace('"label":"50-60"', '"label":"40-60"');
  await sql`update customer_metadata set option_values = ${contiguous} where name = 'ageState' and is_ext = 0 and option_values = ${seeded}`.execute(
    db,
  );
}
