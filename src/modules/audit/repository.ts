import type { AuditLogTable, Database } from '../../db/index.ts';
import type { Kysely, Selectable } from 'kysely';

export type AuditRow = Selectable<AuditLogTable>;

/** SQL of the audit log. */
export const auditRepository = {
  async insert(db: Kysely<Database>, row: AuditRow): Promise<void> {
    await db.insertInto('audit_log').values(row).execute();
  },

  /** A page of a project's entries, newest first. */
  page(db: Kysely<Database>, appId: string, offset: number, limit: number): Promise<AuditRow[]> {
    return db
      .selectFrom('audit_log')
      .selectAll()
      .where('app_id', '=', appId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  },
};
