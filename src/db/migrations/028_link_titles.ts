import { type Kysely, sql } from 'kysely';

/**
 * A link's public title (docs/links.md): what the viewer shows its readers, apart from the link's
 * name, which is the sales team's own. Null: the viewer shows the file's name (or the web page's host).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table links add column title text`.execute(db);
}
