/**
 * The links' read model for the histories module (its lists of links and view logs, and the records
 * behaviour records refer to): the starts and pieces of statements over links, view logs and their
 * durations, to which the caller adds its own columns and conditions, so each read stays one
 * statement; and the creator's read mark. Reached through the links service (`linkHistoryReads`);
 * its type is `LinkHistoryReads` of mapper.ts.
 */
import { type QueryScope, jsonRowsReader, type Database, type LinkViewDurationsTable, type LinkViewLogsTable } from '../../db/index.ts';
import { type Expression, type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';

type Db = Kysely<Database>;

/** A view log as stored. */
type ViewLogRow = Selectable<LinkViewLogsTable>;

/** A page turn as a view log carries it: every column of link_view_durations but the project (the view log's). */
export type ViewDurationRow = Omit<Selectable<LinkViewDurationsTable>, 'app_id'>;

/** A count of views and of distinct viewers, as one JSON value (one pass over the (app_id, link_id, viewer_id) or (app_id, link_id, seq, viewer_id) index). */
const viewCounts = jsonRowsReader<{ views: number; viewers: number }>()(['views', 'viewers']);

/** A view log's durations, in the order `withDurations` carries them as JSON rows. */
const durationRows = jsonRowsReader<ViewDurationRow>()([
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
  'link_id',
  'file_version',
]);

export const linkHistoryReads = {
  /** Every link, every column: the caller adds its conditions and order. */
  links(db: Db) {
    return db.selectFrom('links').selectAll();
  },

  /**
   * Links (aliased `l`) with their id and, as JSON values read with `viewCounts`, their views and
   * distinct viewers (`all_views`) and those after the creator last read the view logs (`new_views`:
   * seq > read_seq, a range of (app_id, link_id, seq)). The caller adds its columns and conditions.
   */
  withViewCounts({ db, rowsAsJson }: QueryScope) {
    return db
      .selectFrom('links as l')
      .select('l.id')
      .select((eb) => [
        rowsAsJson(
          eb
            .selectFrom('link_view_logs as v')
            .select([sql<number>`count(*)`.as('views'), sql<number>`count(distinct v.viewer_id)`.as('viewers')])
            .whereRef('v.app_id', '=', 'l.app_id')
            .whereRef('v.link_id', '=', 'l.id'),
          viewCounts.columns,
        ).as('all_views'),
        rowsAsJson(
          eb
            .selectFrom('link_view_logs as v')
            .select([sql<number>`count(*)`.as('views'), sql<number>`count(distinct v.viewer_id)`.as('viewers')])
            .whereRef('v.app_id', '=', 'l.app_id')
            .whereRef('v.link_id', '=', 'l.id')
            .whereRef('v.seq', '>', 'l.read_seq'),
          viewCounts.columns,
        ).as('new_views'),
      ]);
  },

  /** Reads `all_views` and `new_views` of withViewCounts. */
  viewCounts,

  /** Links (aliased `l`), every column, with the sequence number of their last view (`last_seq`, null without views). */
  withLastSeq(db: Db) {
    return db
      .selectFrom('links as l')
      .selectAll('l')
      .select((eb) =>
        eb
          .selectFrom('link_view_logs as v')
          .select((e) => e.fn.max('v.seq').as('seq'))
          .whereRef('v.app_id', '=', 'l.app_id')
          .whereRef('v.link_id', '=', 'l.id')
          .as('last_seq'),
      );
  },

  /** A page of the view logs of link `linkId` in project `project`, by view time desc, id desc. */
  viewLogPage(db: Db, project: Expression<string>, linkId: string, page: { offset: number; limit: number }) {
    return db
      .selectFrom('link_view_logs')
      .selectAll()
      .where('app_id', '=', project)
      .where('link_id', '=', linkId)
      .orderBy('view_time', 'desc')
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit);
  },

  /** The view logs of project `project` among these ids (by primary key, the project checked on the rows found). */
  viewLogsIn({ db, inList, projectIs }: QueryScope, project: string, ids: string[]) {
    return db
      .selectFrom('link_view_logs')
      .selectAll()
      .where(inList('id', ids, 'text'))
      .where(projectIs('app_id', project));
  },

  /**
   * The view logs `logs` selects (aliased `v`), each with its durations as one JSON value
   * (`durations`, an index range each, read with `durationRows`); `logs` is a subquery, so only its
   * rows are looked at. The caller adds its columns.
   */
  withDurations({ db, rowsAsJson }: QueryScope, logs: SelectQueryBuilder<Database, 'link_view_logs', ViewLogRow>) {
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
      );
  },

  /** Reads `durations` of withDurations. */
  durationRows,

  /**
   * The creator has seen every view up to `lastSeq` (read with the link): the update, a write
   * transaction, runs only when views arrived since the last look, not on every page read.
   */
  async markRead(db: Db, link: { id: string; app_id: string; read_seq: number; last_seq: number | string | null }): Promise<void> {
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
