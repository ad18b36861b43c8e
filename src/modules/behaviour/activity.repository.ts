import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/index.ts';

/** The columns of the customers module's row a correlated subquery names (its project and id), as that module spells them. */
export interface CustomerColumns {
  appId: string;
  id: string;
}

/** A period of records' own time (`when_at`, epoch ms): from `since` (inclusive) to `until` (exclusive); null for open. */
export interface ActivityPeriod {
  since: number | null;
  until: number | null;
}

/**
 * The read models of the customer list's activity filter (docs/customers.md), for the customers
 * module's list statements (through the behaviour service's `customerActivity`):
 * - `customersWith`: whether the customer row (its columns named by the caller) has a record of
 *   these actions in the period: a seek of `behaviour_customer_when_idx` per customer (no index of
 *   its own: one more index on every record written cost ingestion more than the filter saves).
 * - `anyIn`: whether the customer row (its columns named by the caller, the customers module) has
 *   any activity record (every action but the bookkeeping ones) in the period: a seek of
 *   `behaviour_customer_when_idx` per customer.
 */
/** Whether the customer row has a record whose action is (`in`) or is not (`not in`) one of `actions`, in the period. */
function activityExists<DB extends Database, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  customer: CustomerColumns,
  action: { op: 'in' | 'not in'; actions: readonly string[] },
  period: ActivityPeriod,
) {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  let q = e
    .selectFrom('behaviour_logs as b')
    .select('b.id')
    .whereRef('b.app_id', '=', customer.appId as never)
    .whereRef('b.customer_id', '=', customer.id as never)
    .where('b.action', action.op, action.actions);
  if (period.since !== null) q = q.where('b.when_at', '>=', period.since);
  if (period.until !== null) q = q.where('b.when_at', '<', period.until);
  return e.exists(q);
}

export const customerActivityReads = {
  customersWith<DB extends Database, TB extends keyof DB>(
    eb: ExpressionBuilder<DB, TB>,
    customer: CustomerColumns,
    actions: readonly string[],
    period: ActivityPeriod,
  ) {
    return activityExists(eb, customer, { op: 'in', actions }, period);
  },
  anyIn<DB extends Database, TB extends keyof DB>(
    eb: ExpressionBuilder<DB, TB>,
    customer: CustomerColumns,
    bookkeeping: readonly string[],
    period: ActivityPeriod,
  ) {
    return activityExists(eb, customer, { op: 'not in', actions: bookkeeping }, period);
  },
};
