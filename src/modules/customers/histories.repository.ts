/**
 * The customers' read model for history records (the histories module's calls, links and view
 * logs): the columns a record shows of its customer and the pieces of the statements that join
 * them, so each of those reads stays one statement. Reached through the customers service
 * (`customerHistoryReads`); its type is `CustomerHistoryReads` of mapper.ts.
 */
import type { CustomersTable, Database } from '../../db/index.ts';
import { type AliasedSelectQueryBuilder, type Expression, type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';

type Db = Kysely<Database>;

/** The customer columns a call or link shows (the histories' toCallCustomer, toLinkCustomer). */
const CARD_COLUMNS = [
  'id',
  'app_id',
  'owner_id',
  'name',
  'title',
  'email',
  'phone',
  'company',
  'status',
  'merged_customer_id',
  'headportrait_url',
  'group_id',
  'sex',
  'address',
  'age_state',
  'fixed_phone',
  'created_at',
  'updated_at',
] as const;

/** A customer as a history record shows it. */
export type CustomerCardRow = Pick<Selectable<CustomersTable>, (typeof CARD_COLUMNS)[number]>;

/** A card's column as it rides along a record's row (`cu_` prefixed, null without a customer). */
export type CardColumns = { [K in keyof CustomerCardRow as `cu_${K & string}`]: CustomerCardRow[K] | null };

export const customerHistoryReads = {
  /** Every customer with the columns a record shows: the caller adds its conditions (id, project). */
  cards(db: Db) {
    return db.selectFrom('customers').select(CARD_COLUMNS);
  },

  /**
   * The rows of `page` (aliased `k`: the caller's page of records, each with `customer_id` and
   * `app_id`), each with its customer's card columns `cu_…` (null when it has none in the project):
   * the start of one statement the caller orders.
   */
  withCards<R extends { customer_id: string | null; app_id: string }>(db: Db, page: AliasedSelectQueryBuilder<R, 'k'>) {
    const rows = page as unknown as AliasedSelectQueryBuilder<{ customer_id: string | null; app_id: string }, 'k'>;
    return db
      .selectFrom(rows)
      .leftJoin('customers as c', (j) => j.onRef('c.id', '=', 'k.customer_id').onRef('c.app_id', '=', 'k.app_id'))
      .selectAll('k')
      .select(CARD_COLUMNS.map((c) => sql.ref(`c.${c}`).as(`cu_${c}`))) as unknown as SelectQueryBuilder<
      Database & { k: R },
      'k',
      R & CardColumns
    >;
  },

  /** The live customer of `project` whose id is `viewer` (an EXISTS operand). */
  liveWithId(db: Db, project: string | Expression<string>, viewer: Expression<string | null>) {
    return db
      .selectFrom('customers as c')
      .select('c.id')
      .where('c.id', '=', viewer)
      .where('c.app_id', '=', project)
      .where('c.status', '=', 1);
  },

  /** The live customers of `project` whose dealUserId is `viewer` (an EXISTS operand). */
  liveWithDealUserId(db: Db, project: string | Expression<string>, viewer: Expression<string | null>) {
    return db
      .selectFrom('customers as c')
      .select('c.id')
      .where('c.app_id', '=', project)
      .where('c.deal_user_id', '=', viewer)
      .where('c.status', '=', 1);
  },
};
