/**
 * The histories' SQL of view logs, each with its durations and whether its viewer is a live customer:
 * the view-log list (a link with a page of its view logs, and the creator's read mark) and the view
 * logs behaviour records refer to. The other reads are in repository.ts, the record write path in
 * records.repository.ts.
 */
import {
  type PreparedReader,
  type QueryScope,
  jsonRowsReader,
  preparedQuery,
  type LinkViewDurationsTable,
  type LinkViewLogsTable,
  type Database,
  crossProject,
} from '../../db/index.ts';
import { type Kysely, type RawBuilder, type SelectQueryBuilder, type Selectable, sql } from 'kysely';

type Db = Kysely<Database>;

/** A page turn as a view log page carries it: every column of link_view_durations but the project (the view log's). */
type DurationRow = Omit<Selectable<LinkViewDurationsTable>, 'app_id'>;

/** Those columns, in the order a view log page carries them as JSON rows. */
const durationRows = jsonRowsReader<DurationRow>()([
  'link_view_log_id',
  'position',
  'id',
  'file_id',
  'file_name',
  'file_url',
  'page_index',
  'duration',
  'sort_index',
  'created_at',
  'ended_at',
  'total',
]);

/** A view log page's row: every column of link_view_logs, its durations and whether its viewer is a customer. */
const viewLogRows = jsonRowsReader<Selectable<LinkViewLogsTable> & { durations: unknown; viewer_is_customer: number }>()([
  'seq',
  'id',
  'app_id',
  'link_id',
  'viewer_id',
  'viewer_name',
  'ip',
  'location',
  'system',
  'client',
  'clue_id',
  'leave_time',
  'spread_id',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'view_time',
  'total_duration',
  'total_page',
  'created_at',
  'visitor_id',
  'customer_id',
  'beacon_seq',
  'beacon_at',
  'closed_at',
  'left_at',
  'durations',
  'viewer_is_customer',
]);

/**
 * View logs (the rows `logs` selects), each with its durations as one JSON value (an index range each)
 * and whether its viewer is already a live customer of `project`, by id or dealUserId (two index seeks
 * per row; `logs` is a subquery, so only its rows are looked at).
 */
function viewLogsWithExtras(
  { db, rowsAsJson }: QueryScope,
  logs: SelectQueryBuilder<Database, 'link_view_logs', Selectable<LinkViewLogsTable>>,
  project: string | RawBuilder<string>,
) {
  return db
    .selectFrom(logs.as('v'))
    .selectAll('v')
    .select((eb) =>
      rowsAsJson(
        eb
          .selectFrom('link_view_durations as d')
          .selectAll('d')
          .whereRef('d.app_id', '=', 'v.app_id')
          .whereRef('d.link_view_log_id', '=', 'v.id'),
        durationRows.columns,
      ).as('durations'),
    )
    .select((eb) =>
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('customers as c')
              .select('c.id')
              .whereRef('c.id', '=', 'v.viewer_id')
              .where('c.app_id', '=', project)
              .where('c.status', '=', 1),
          ),
          eb.exists(
            eb
              .selectFrom('customers as c')
              .select('c.id')
              .where('c.app_id', '=', project)
              .whereRef('c.deal_user_id', '=', 'v.viewer_id')
              .where('c.status', '=', 1),
          ),
        ])
        .as('viewer_is_customer'),
    );
}

/** Durations of view log rows read as JSON, in the producer's order; updated in place (a spread of a wide row makes V8 build slow dictionary objects). */
function withDurations<R extends { durations: unknown }>(rows: R[]) {
  for (const row of rows) row.durations = durationRows.read(row.durations).sort((a, b) => a.position - b.position);
  return rows as (Omit<R, 'durations'> & { durations: DurationRow[] })[];
}

/**
 * The link, with its last view's sequence number (markLinkRead), and in the same row one page of its
 * view logs as one JSON value (`page`), each with its durations and whether its viewer is already a
 * live customer of the link's project (viewLogsWithExtras). One statement for what took three (ADR 0011).
 * The view logs' path names the link only: its project is the row's.
 */
const linkWithViewLogPage = preparedQuery('linkWithViewLogPage', (q, id: string, pageOf: string, offset: number, limit: number) =>
  q.db
    .selectFrom('links as l')
    .selectAll('l')
    .select((eb) =>
      eb
        .selectFrom('link_view_logs as v')
        .select((e) => e.fn.max('v.seq').as('seq'))
        .whereRef('v.app_id', '=', 'l.app_id')
        .whereRef('v.link_id', '=', 'l.id')
        .as('last_seq'),
    )
    .select(
      q
        .rowsAsJson(
          viewLogsWithExtras(
            q,
            q.db
              .selectFrom('link_view_logs')
              .selectAll()
              .where('app_id', '=', sql.ref<string>('l.app_id'))
              .where('link_id', '=', pageOf)
              .orderBy('view_time', 'desc')
              .orderBy('id', 'desc')
              .offset(offset)
              .limit(limit),
            sql.ref<string>('l.app_id'),
          ),
          viewLogRows.columns,
        )
        .as('page'),
    )
    .where('l.id', '=', id)
    .modifyEnd(crossProject('record-by-id')),
);
/** The project's view logs by id, each with its durations and whether its viewer is a live customer of the project (viewLogsWithExtras). */
const viewLogsIn = preparedQuery('viewLogsIn', (q, appId: string, logsApp: string, ids: string[]) =>
  viewLogsWithExtras(
    q,
    q.db
      .selectFrom('link_view_logs')
      .selectAll()
      .where(q.inList('id', ids, 'text'))
      .where(q.projectIs('app_id', logsApp)),
    appId,
  ),
);

export const viewLogsRepository = {
  /**
   * The link with the sequence number of its last view (null without views), and a page of its view
   * logs by view time desc, id desc, each with its durations (in the producer's order) and whether
   * its viewer is a live customer of the link's project.
   */
  async linkWithViewLogs(r: PreparedReader, linkId: string, offset: number, limit: number) {
    const found = await r.first(linkWithViewLogPage, linkId, linkId, offset, limit);
    if (found === undefined) return undefined;
    const rows = viewLogRows.read(found.page).sort((a, b) => b.view_time - a.view_time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const page = withDurations(rows);
    return { link: found, page };
  },

  /**
   * The project's view logs by id, each with its durations (in the producer's order) and whether
   * its viewer is a live customer of the project.
   */
  async viewLogsByIds(r: PreparedReader, appId: string, ids: string[]) {
    if (ids.length === 0) return [];
    return withDurations(await r.all(viewLogsIn, appId, appId, ids));
  },

  /**
   * The creator has seen every view up to `lastSeq` (read with the link): the update, a write
   * transaction, runs only when views arrived since the last look, not on every page read.
   */
  async markLinkRead(db: Db, link: { id: string; app_id: string; read_seq: number; last_seq: number | string | null }): Promise<void> {
    const max = link.last_seq === null ? null : Number(link.last_seq);
    if (max === null || max <= Number(link.read_seq)) return;
    await db
      .updateTable('links')
      .set({ read_seq: max })
      .where('app_id', '=', link.app_id)
      .where('id', '=', link.id)
      .where('read_seq', '<', max)
      .execute();
  },
};
