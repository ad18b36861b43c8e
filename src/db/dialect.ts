import type { Expression, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

/**
 * What differs between the two databases, behind one small interface (capability flags and a
 * few builders), so that no code outside src/db/ branches on the dialect.
 */
export interface DialectFeatures {
  readonly name: DialectName;
  /** Row locks that skip rows another transaction holds (`FOR UPDATE SKIP LOCKED`). */
  readonly skipLocked: boolean;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number;
  /**
   * A whole array binds as one parameter (`= any($1)`, `unnest($1::int8[], ...)`), so bulk writes
   * and id lookups need not spell out one parameter per value (see bulk.ts).
   */
  readonly arrayParameters: boolean;
  /**
   * Serialises a transaction against every other holder of the same key until it ends (PostgreSQL:
   * an advisory transaction lock; SQLite: a no-op, its single writer already serialises). `shared`:
   * held together with other shared holders, only against an exclusive one. Several keys are taken
   * in ascending order in one statement, so transactions that take overlapping sets never deadlock.
   */
  transactionLock(trx: Kysely<Database>, key: number | readonly number[], mode?: 'exclusive' | 'shared'): Promise<void>;
  /**
   * `column IN (list)` with the whole list bound as one parameter, so a prepared statement serves
   * lists of any length (SQLite: a JSON array through json_each; PostgreSQL: an array through unnest).
   */
  listParameter(column: string, list: unknown, type: 'text' | 'int8'): RawBuilder<SqlBool>;
  /**
   * A subquery's rows as ONE value of the outer row: a JSON array holding each row as an array of
   * `columns`, `[]` for none, in no particular order (SQLite: json_group_array; PostgreSQL: json_agg).
   * Read it with `jsonRowsOf` (prepared.ts). A parent row and its few children then travel in one
   * statement instead of two.
   */
  rowsAsJson(subquery: Expression<unknown>, columns: readonly string[]): RawBuilder<unknown>;
  /**
   * `column = appId`, the project condition of a statement that finds its rows by primary key (a
   * read by a list of ids): the key must stay the planner's way in. SQLite, without statistics,
   * may walk a whole project through an index that starts with app_id instead, so it gets
   * `+column = ?` (the unary plus keeps that index out of the plan, the condition is checked on the
   * rows found); PostgreSQL plans with statistics and gets a plain `=` (a distributed database
   * routes a statement by it).
   */
  projectIs(column: string, appId: unknown): RawBuilder<SqlBool>;
}
