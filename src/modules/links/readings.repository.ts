/**
 * What the scoring module reads of views and links (docs/scoring.md): each view's pages as stored
 * (per file, the pages read and the time on each) and links' names, in the caller's transaction (the
 * ingestion batch that wrote them), one statement each. Reached through the links service
 * (`createLinkReadings`).
 */
import { type Database, type DatabaseHandle, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/** A view's pages: per file read, its name as the view stored it and the time (ms) on each page read. */
export interface ViewReading {
  linkId: string | null;
  files: Map<string, { name: string | null; pages: Map<number, number> }>;
}

/** A Duration item's time on its page in ms: its `duration` (milliseconds as text, docs/interface.md), else its `total`. */
function msOf(total: number | null, duration: string | null): number {
  const n = duration === null || duration.trim() === '' ? NaN : Number(duration);
  if (Number.isFinite(n)) return Math.max(0, n);
  return total !== null && Number.isFinite(Number(total)) ? Math.max(0, Number(total)) : 0;
}

export function createLinkReadings(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  return {
    /** The project's views among these ids with their pages read, one statement per chunk. */
    async viewPages(trx: Db, appId: string, viewIds: string[]): Promise<Map<string, ViewReading>> {
      const out = new Map<string, ViewReading>();
      for (const part of bulk.lookupChunks(viewIds)) {
        const rows = await trx
          .selectFrom('link_view_logs as v')
          .leftJoin('link_view_durations as d', (j) => j.onRef('d.app_id', '=', 'v.app_id').onRef('d.link_view_log_id', '=', 'v.id'))
          .select(['v.id', 'v.link_id', 'd.file_id', 'd.file_name', 'd.page_index', 'd.duration', 'd.total'])
          .where('v.app_id', '=', appId)
          .where(bulk.anyOf('v.id', part))
          .execute();
        for (const r of rows) {
          let view = out.get(r.id);
          if (view === undefined) out.set(r.id, (view = { linkId: r.link_id, files: new Map() }));
          const page = Number(r.page_index);
          if (r.file_id === null || !Number.isInteger(page) || page < 1) continue;
          let file = view.files.get(r.file_id);
          if (file === undefined) view.files.set(r.file_id, (file = { name: r.file_name, pages: new Map() }));
          file.pages.set(page, Math.max(file.pages.get(page) ?? 0, msOf(r.total, r.duration)));
        }
      }
      return out;
    },

    /** The names of the project's links among these ids. */
    async linkNames(trx: Db, appId: string, linkIds: string[]): Promise<Map<string, string | null>> {
      const out = new Map<string, string | null>();
      for (const part of bulk.lookupChunks(linkIds)) {
        const rows = await trx
          .selectFrom('links')
          .select(['id', 'name'])
          .where(bulk.anyOf('id', part))
          .where(database.features.projectIs('app_id', appId))
          .execute();
        for (const r of rows) out.set(r.id, r.name);
      }
      return out;
    },
  };
}

export type LinkReadings = ReturnType<typeof createLinkReadings>;
