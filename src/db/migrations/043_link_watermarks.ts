import { type Kysely, sql } from 'kysely';

/**
 * Dynamic watermarks (docs/links.md, "Watermarks and deterrence"; ADR 0044), owned by the links
 * module: `links.watermark` 1, every page image the viewer serves for the link is drawn over with who
 * is reading (the e-mail address the gate was given, else the visitor's short id), when and from what
 * address, and its download is a PDF of those images. Nothing is stored per image: they are drawn as
 * they are asked for.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table links add column watermark integer not null default 0`.execute(db);
}
