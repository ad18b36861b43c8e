import type { Kysely } from 'kysely';
import { type Database, crossProject } from '../../db/index.ts';
import type { FilePageRow, FileRow } from './mapper.ts';

type Db = Kysely<Database>;

/** What a new version replaces in its file's row. */
export interface NewContent {
  name: string;
  size: number;
  mime_type: string;
  page_count: number;
  content_id: string;
  updated_at: number;
}

/** SQL of files and their rendered pages. Every statement names the project, but the renderer's look for projects with work. */
export const filesRepository = {
  async insert(db: Db, row: FileRow): Promise<void> {
    await db.insertInto('files').values(row).execute();
  },

  /** The name and page count of the project's files among these ids. */
  facts(
    db: Db,
    appId: string,
    ids: string[],
  ): Promise<{ id: string; name: string; page_count: number; version: number; status: string; rendered_pages: number }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('files')
      .select(['id', 'name', 'page_count', 'version', 'status', 'rendered_pages'])
      .where('app_id', '=', appId)
      .where('id', 'in', ids)
      .execute();
  },

  find(db: Db, appId: string, id: string): Promise<FileRow | undefined> {
    return db.selectFrom('files').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** A page of the project's files, newest first. */
  list(db: Db, appId: string, offset: number, limit: number): Promise<FileRow[]> {
    return db
      .selectFrom('files')
      .selectAll()
      .where('app_id', '=', appId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  },

  /**
   * Makes `content` the file's current version, to be rendered from its first page, in place of
   * `replacing`; false when the file's content is no longer that one (another version came first).
   */
  async replaceContent(db: Db, appId: string, id: string, replacing: string, content: NewContent): Promise<boolean> {
    const res = await db
      .updateTable('files')
      .set((eb) => ({
        ...content,
        version: eb('version', '+', 1),
        status: 'processing',
        rendered_pages: 0,
        failure: null,
        lease_until: null,
      }))
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('content_id', '=', replacing)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  async deletePages(db: Db, appId: string, fileId: string): Promise<void> {
    await db.deleteFrom('file_pages').where('app_id', '=', appId).where('file_id', '=', fileId).execute();
  },

  /**
   * The projects with files waiting for a renderer (still processing, held by no process: no lease,
   * or one run out), with the time of each one's oldest waiting change. The one statement over every
   * project: the renderer serves them all, taking turns between them.
   */
  async waitingProjects(db: Db, now: number): Promise<{ appId: string; oldest: number }[]> {
    const rows = await db
      .selectFrom('files')
      .select((eb) => ['app_id', eb.fn.min<number>('updated_at').as('oldest')])
      .where('status', '=', 'processing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .groupBy('app_id')
      .modifyEnd(crossProject('file-renderer'))
      .execute();
    return rows.map((r) => ({ appId: r.app_id, oldest: Number(r.oldest) }));
  },

  /** A project's files waiting for a renderer, oldest change first. */
  waiting(db: Db, appId: string, now: number, limit: number): Promise<Pick<FileRow, 'app_id' | 'id' | 'content_id'>[]> {
    return db
      .selectFrom('files')
      .select(['app_id', 'id', 'content_id'])
      .where('app_id', '=', appId)
      .where('status', '=', 'processing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('updated_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /** Takes a waiting file for this process until `until`; false when another process took it first or it changed. */
  async claim(db: Db, appId: string, id: string, contentId: string, now: number, until: number): Promise<boolean> {
    const res = await db
      .updateTable('files')
      .set({ lease_until: until })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('content_id', '=', contentId)
      .where('status', '=', 'processing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /**
   * Records a rendered page and extends the lease; false when the file has a new version by now, is
   * no longer processing, or has this page already (another process rendered it), and then nothing
   * is written. Run it in a transaction.
   */
  async pageRendered(db: Db, page: FilePageRow, until: number): Promise<boolean> {
    const res = await db
      .updateTable('files')
      .set({ rendered_pages: page.page, lease_until: until })
      .where('app_id', '=', page.app_id)
      .where('id', '=', page.file_id)
      .where('content_id', '=', page.content_id)
      .where('status', '=', 'processing')
      .where('rendered_pages', '=', page.page - 1)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    await db.insertInto('file_pages').values(page).execute();
    return true;
  },

  /** Ends rendering of a version: ready, or failed with why; false when the file has a new version by now. */
  async finish(
    db: Db,
    appId: string,
    id: string,
    contentId: string,
    outcome: { status: 'ready' | 'failed'; failure: string | null },
    now: number,
  ): Promise<boolean> {
    const res = await db
      .updateTable('files')
      .set({ status: outcome.status, failure: outcome.failure, lease_until: null, updated_at: now })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('content_id', '=', contentId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /** Gives up this process's hold on a file it was rendering (the server is stopping): another process takes it up at once. */
  async release(db: Db, appId: string, id: string, contentId: string): Promise<void> {
    await db
      .updateTable('files')
      .set({ lease_until: null })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('content_id', '=', contentId)
      .where('status', '=', 'processing')
      .execute();
  },

  page(db: Db, appId: string, fileId: string, page: number): Promise<FilePageRow | undefined> {
    return db
      .selectFrom('file_pages')
      .selectAll()
      .where('app_id', '=', appId)
      .where('file_id', '=', fileId)
      .where('page', '=', page)
      .executeTakeFirst();
  },

  /** The rendered pages of a file, in order (the public viewer's page sizes). */
  pages(db: Db, appId: string, fileId: string): Promise<FilePageRow[]> {
    return db.selectFrom('file_pages').selectAll().where('app_id', '=', appId).where('file_id', '=', fileId).orderBy('page').execute();
  },
};
