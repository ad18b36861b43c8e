import { type Kysely, sql } from 'kysely';

/**
 * Reading analytics per link and per version of its file (docs/links.md, "Reading analytics";
 * ADR 0046), owned by the links module. Columns only the public viewer fills; an integrator's view
 * logs and Duration items (ingestion) leave them null.
 *
 * `link_view_durations` gains `file_version`, the version of the file the page was first read in,
 * and `link_id`, the view log's link (so that a link's pages are read on one index of this table).
 * `link_view_logs` gains `file_id` and `file_version`, what the view opened (its first page's file
 * and version), `file_page_count`, that version's page count (the files module keeps only the current
 * version's), and `last_page`, the page it was on at its last beacon (where it ended).
 *
 * Existing rows: the viewer's (views with a visitor) of a file of the project are counted under the
 * file's version at the time of this migration, the only one still known, and its page count;
 * `last_page` is the page read last (latest `ended_at`). Rows of ingested views, and of files no
 * longer there, stay null.
 *
 * Indexes, each read as one range per link: the link's views per version (counts, pages read, median
 * time, where views ended), its viewers (the former `link_view_logs_viewer_idx`, widened to carry each
 * view's figures: views and distinct viewers, of the link and per version, without a sort) and its
 * pages per version; the first and last only over the viewer's rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table link_view_durations add column link_id text`.execute(db);
  await sql`alter table link_view_durations add column file_version integer`.execute(db);
  await sql`alter table link_view_logs add column file_id text`.execute(db);
  await sql`alter table link_view_logs add column file_version integer`.execute(db);
  await sql`alter table link_view_logs add column last_page integer`.execute(db);
  await sql`alter table link_view_logs add column file_page_count integer`.execute(db);
  await backfill(db);

  await sql`drop index link_view_logs_viewer_idx`.execute(db);
  await sql`create index link_view_logs_viewers_idx
    on link_view_logs (app_id, link_id, viewer_id, file_id, file_version, view_time, total_duration, total_page)`.execute(db);
  await sql`create index link_view_logs_versions_idx
    on link_view_logs (app_id, link_id, file_id, file_version, total_duration, total_page, last_page, file_page_count)
    where file_version is not null`.execute(db);
  await sql`create index link_view_durations_pages_idx
    on link_view_durations (app_id, link_id, file_id, file_version, page_index, total)
    where file_version is not null`.execute(db);
}

/** The new columns of the rows already there (exported for the test that checks it against what the viewer writes). */
export async function backfill(db: Kysely<unknown>): Promise<void> {
  await sql`update link_view_durations as d set link_id = v.link_id, file_version = f.version
    from link_view_logs v, files f
    where v.app_id = d.app_id and v.id = d.link_view_log_id and v.visitor_id is not null
      and f.app_id = d.app_id and f.id = d.file_id`.execute(db);
  await sql`update link_view_logs as v set file_id = d.file_id, file_version = d.file_version, file_page_count = f.page_count
    from link_view_durations d, files f
    where d.app_id = v.app_id and d.link_view_log_id = v.id and d.position = 0 and d.file_version is not null
      and f.app_id = d.app_id and f.id = d.file_id`.execute(db);
  await sql`update link_view_logs as v set last_page = (
      select cast(d.page_index as integer) from link_view_durations d
      where d.app_id = v.app_id and d.link_view_log_id = v.id and d.file_version is not null
      order by coalesce(d.ended_at, 0) desc, d.position desc
      limit 1)
    where v.file_version is not null`.execute(db);
}
