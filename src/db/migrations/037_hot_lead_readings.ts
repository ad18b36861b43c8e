import { type Kysely, sql } from 'kysely';

/**
 * Hot leads folded into readings (docs/alerts.md, "A hot lead during a reading"): `alert_readings`
 * gains `hot`, the score and reasons (JSON `{score, reasons}`) of a customer announced as a hot lead
 * while one of its directed readings was in progress; that reading's end is then the one alert that
 * tells both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table alert_readings add column hot text`.execute(db);
}
