import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from './schema.ts';

/** LIKE pattern that matches `text` literally anywhere (%, _ and \ escaped). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive "column contains text", written the same way for SQLite and PostgreSQL. */
export function containsInsensitive<DB, TB extends keyof DB>(
  _eb: ExpressionBuilder<DB, TB>,
  column: Expression<string | null>,
  text: string,
): Expression<SqlBool> {
  return sql<SqlBool>`lower(${column}) like ${containsPattern(text)} escape '\\'`;
}

/** A trivial read: resolves when the database answers. */
export async function ping(db: Kysely<Database>): Promise<void> {
  await db.selectNoFrom(sql.lit(1).as('ok')).execute();
}
