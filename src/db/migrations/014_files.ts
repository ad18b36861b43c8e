import { type Kysely, sql } from 'kysely';

/**
 * Uploaded files (PDFs, and images shown as one page) and their rendered pages. A file keeps its id
 * across new versions; `content_id` names the current content, under which the original and the
 * page images are stored (DATA_DIR/files/<app_id>/<id>/<content_id>/…). `lease_until` is how long the
 * process rendering a file holds it: a file still `processing` whose lease has run out is taken up
 * by any process.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table files (
    id text primary key,
    app_id text not null references apps (id),
    name text not null,
    size bigint not null,
    mime_type text not null,
    page_count integer not null,
    status text not null,
    version integer not null,
    content_id text not null,
    rendered_pages integer not null,
    failure text,
    lease_until bigint,
    created_by bigint not null,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index files_app_time on files (app_id, created_at, id)`.execute(db);
  await sql`create index files_rendering on files (status, lease_until)`.execute(db);

  await sql`create table file_pages (
    app_id text not null,
    file_id text not null references files (id),
    page integer not null,
    content_id text not null,
    desktop_width integer not null,
    desktop_height integer not null,
    desktop_bytes integer not null,
    phone_width integer not null,
    phone_height integer not null,
    phone_bytes integer not null,
    created_at bigint not null,
    primary key (app_id, file_id, page)
  )`.execute(db);
}
