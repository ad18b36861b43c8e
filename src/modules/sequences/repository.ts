/**
 * The sequences module's SQL of definitions and send settings (definitions.service.ts,
 * settings.service.ts, the inbound mail webhook): a project's settings, found by the project or by
 * the inbound token; sequences and their immutable versions.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import { type Database, type SequenceSettingsTable, type SequencesTable, crossProject } from '../../db/index.ts';
import type { SequenceRow, SettingsRow, VersionRow } from './mapper.ts';

type Db = Kysely<Database>;

export const sequencesRepository = {
  settings(db: Db, appId: string): Promise<SettingsRow | undefined> {
    return db.selectFrom('sequence_settings').selectAll().where('app_id', '=', appId).executeTakeFirst();
  },

  /** The project's settings row with the defaults, unless one is there (two first reads at once keep one). */
  async insertSettings(db: Db, row: Insertable<SequenceSettingsTable>): Promise<void> {
    await db
      .insertInto('sequence_settings')
      .values(row)
      .onConflict((oc) => oc.column('app_id').doNothing())
      .execute();
  },

  async updateSettings(db: Db, appId: string, patch: Updateable<SequenceSettingsTable>): Promise<void> {
    await db.updateTable('sequence_settings').set(patch).where('app_id', '=', appId).execute();
  },

  /** The project whose inbound mail webhook has this token (unique across projects). */
  async appByInboundToken(db: Db, token: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('sequence_settings')
      .select('app_id')
      .where('inbound_token', '=', token)
      .modifyEnd(crossProject('inbound-mail-token'))
      .executeTakeFirst();
    return row?.app_id;
  },

  async insertSequence(db: Db, row: Insertable<SequencesTable>, version: VersionRow): Promise<void> {
    await db.insertInto('sequences').values(row).execute();
    await db.insertInto('sequence_versions').values(version).execute();
  },

  /** A live (not archived) sequence of the project. */
  find(db: Db, appId: string, id: string): Promise<SequenceRow | undefined> {
    return db
      .selectFrom('sequences')
      .selectAll()
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  version(db: Db, appId: string, sequenceId: string, version: number): Promise<VersionRow | undefined> {
    return db
      .selectFrom('sequence_versions')
      .selectAll()
      .where('app_id', '=', appId)
      .where('sequence_id', '=', sequenceId)
      .where('version', '=', version)
      .executeTakeFirst();
  },

  /** The current versions of these sequences. */
  async currentVersions(db: Db, appId: string, rows: SequenceRow[]): Promise<Map<string, VersionRow>> {
    const out = new Map<string, VersionRow>();
    if (rows.length === 0) return out;
    const found = await db
      .selectFrom('sequence_versions as v')
      .innerJoin('sequences as s', (j) =>
        j.onRef('s.app_id', '=', 'v.app_id').onRef('s.id', '=', 'v.sequence_id').onRef('s.version', '=', 'v.version'),
      )
      .selectAll('v')
      .where('v.app_id', '=', appId)
      .where(
        's.id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    for (const v of found) out.set(v.sequence_id, v);
    return out;
  },

  /** The project's live sequences, newest first. */
  page(db: Db, appId: string, offset: number, limit: number): Promise<SequenceRow[]> {
    return db
      .selectFrom('sequences')
      .selectAll()
      .where('app_id', '=', appId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  },

  /**
   * Makes `version` the sequence's current one, if it is still at `from` (two edits at once: one
   * wins, the other is told the sequence changed); the version row is written by the caller.
   */
  async bump(db: Db, appId: string, id: string, change: { from: number; name: string; now: number }): Promise<boolean> {
    const r = await db
      .updateTable('sequences')
      .set({ version: change.from + 1, name: change.name, updated_at: change.now })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('version', '=', change.from)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  async insertVersion(db: Db, v: VersionRow): Promise<void> {
    await db.insertInto('sequence_versions').values(v).execute();
  },

  async archive(db: Db, appId: string, id: string, now: number): Promise<boolean> {
    const r = await db
      .updateTable('sequences')
      .set({ deleted_at: now, updated_at: now })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** The names of these sequences (archived too: an enrolment names the sequence it was in). */
  async names(db: Db, appId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db.selectFrom('sequences').select(['id', 'name']).where('app_id', '=', appId).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  },
};
