import { type Kysely, sql } from 'kysely';

/**
 * Invitations to join a project by e-mail (docs/projects.md, ADR 0036): a Master or Admin invites an
 * address with a role; the invitation's link carries a random token of which only the SHA-256 is
 * kept (`token_hash`, unique across projects: the public accept page knows nothing else). One row per
 * invitation: re-inviting a pending address renews its row; accepting, revoking and expiring keep it
 * (`accepted_at`, `revoked_at`, `expires_at`) so that a used link answers as a used one.
 *
 * A server administrator may also be marked on the account (`users.server_admin`, 1): the first
 * account, made with the setup code, and those `rapport user create --admin` makes; ADMIN_USER_IDS
 * still names others. Every existing account is not one (0).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table invitations (
    id text primary key,
    app_id text not null,
    email text not null,
    email_lower text not null,
    role text not null,
    token_hash text not null,
    invited_by integer not null,
    created_at bigint not null,
    sent_at bigint not null,
    expires_at bigint not null,
    accepted_at bigint,
    accepted_by integer,
    revoked_at bigint
  )`.execute(db);
  await sql`create unique index invitations_token_idx on invitations (token_hash)`.execute(db);
  await sql`create index invitations_app_email_idx on invitations (app_id, email_lower)`.execute(db);
  await sql`alter table users add column server_admin integer default 0 not null`.execute(db);
}
