import { type Kysely, sql } from 'kysely';

/**
 * A verification code is for one purpose: `register` (the codes `POST /svcuser/oauth2/verification-code`
 * sends) or `reset` (the console's password reset, docs/accounts.md). A target may hold one code of
 * each at once, and a code of one purpose never passes for the other: the key becomes
 * (target, purpose). Every code issued before is a registration code.
 *
 * SQLite cannot change a primary key in place: the table is rebuilt (new table, rows copied, old one
 * dropped, new one renamed). PostgreSQL changes it in place. No default: every write names its purpose.
 *
 * A reset ends every session of the user: their access and refresh tokens are deleted by user, which
 * the new indexes find without reading the whole tables.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await sql`create index access_tokens_user_idx on access_tokens (user_id)`.execute(db);
  await sql`create index refresh_tokens_user_idx on refresh_tokens (user_id)`.execute(db);
  if (dialect === 'postgres') {
    await sql`alter table verification_codes add column purpose text not null default 'register'`.execute(db);
    await sql`alter table verification_codes alter column purpose drop default`.execute(db);
    await sql`alter table verification_codes drop constraint verification_codes_pkey`.execute(db);
    await sql`alter table verification_codes add constraint verification_codes_pk primary key (target, purpose)`.execute(db);
    return;
  }
  await sql`create table verification_codes_022 (
    target text not null,
    purpose text not null,
    code_hash text not null,
    expires_at bigint not null,
    created_at bigint not null,
    attempts integer default 0 not null,
    constraint verification_codes_pk primary key (target, purpose)
  )`.execute(db);
  await sql`insert into verification_codes_022 (target, purpose, code_hash, expires_at, created_at, attempts)
    select target, 'register', code_hash, expires_at, created_at, attempts from verification_codes`.execute(db);
  await sql`drop table verification_codes`.execute(db);
  await sql`alter table verification_codes_022 rename to verification_codes`.execute(db);
}
