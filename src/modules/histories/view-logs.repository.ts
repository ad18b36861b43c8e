/**
 * The histories' SQL of view logs, each with its durations and whether its viewer is a live customer:
 * the view-log list (a link with a page of its view logs, and the creator's read mark) and the view
 * logs behaviour records refer to. Links, view logs and their durations are read through the links'
 * read model, the viewer's customer through the customers'; each read stays one statement. The other
 * reads are in repository.ts, the record write path in records.repository.ts.
 */
import {
  type PreparedReader,
  type QueryScope,
  jsonRowsReader,
  preparedQuery,
  type LinkViewLogsTable,
  crossProject,
} from '../../db/index.ts';
import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { ViewDurationRow } from '../links/mapper.ts';
import type { HistoryReadModels } from './repository.ts';

type Db = Kysely<Database>;

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
  'file_id',
  'file_version',
  'last_page',
  'file_page_count',
  'reader_email',
  'reader_verified',
  'durations',
  'viewer_is_customer',
]);

/**
 * The view logs, links and customers' statements of the view-log reads, built on their owners' read
 * models (`reads`, wired in src/services.ts).
 */
export function createViewLogsRepository(reads: HistoryReadModels) {
  const { links, customers } = reads;

  /**
   * View logs (the rows `logs` selects), each with its durations as one JSON value (an index range each)
   * and whether its viewer is already a live customer of `project`, by id or dealUserId (two index seeks
   * per row; `logs` is a subquery, so only its rows are looked at).
   */
  function viewLogsWithExtras(q: QueryScope, logs: Parameters<typeof links.withDurations>[1], project: string | RawBuilder<string>) {
    return links
      .withDurations(q, logs)
      .select((eb) =>
        eb
          .or([
            eb.exists(customers.liveWithId(q.db, project, eb.ref('v.viewer_id'))),
            eb.exists(customers.liveWithDealUserId(q.db, project, eb.ref('v.viewer_id'))),
          ])
          .as('viewer_is_customer'),
      );
  }

  /** Durations of view log rows read as JSON, in the producer's order; updated in place (a spread of a wide row makes V8 build slow dictionary objects). */
  function withDurations<R extends { durations: unknown }>(rows: R[]) {
    for (const row of rows) row.durations = links.durationRows.read(row.durations).sort((a, b) => a.position - b.position);
    return rows as (Omit<R, 'durations'> & { durations: ViewDurationRow[] })[];
  }

  /**
   * The link, with its last view's sequence number (markRead), and in the same row one page of its
   * view logs as one JSON value (`page`), each with its durations and whether its viewer is already a
   * live customer of the link's project (viewLogsWithExtras). One statement for what took three (ADR 0011).
   * The view logs' path names the link only: its project is the row's.
   */
  const linkWithViewLogPage = preparedQuery('linkWithViewLogPage', (q, id: string, pageOf: string, offset: number, limit: number) =>
    links
      .withLastSeq(q.db)
      .select(
        q
          .rowsAsJson(
            viewLogsWithExtras(
              q,
              links.viewLogPage(q.db, sql.ref<string>('l.app_id'), pageOf, { offset, limit }),
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
    viewLogsWithExtras(q, links.viewLogsIn(q, logsApp, ids), appId),
  );

  return {
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

    /** The creator has seen every view up to the link's last (the links' read mark). */
    markLinkRead(db: Db, link: { id: string; app_id: string; read_seq: number; last_seq: number | string | null }): Promise<void> {
      return links.markRead(db, link);
    },
  };
}
