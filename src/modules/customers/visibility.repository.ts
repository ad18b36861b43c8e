/**
 * The read model customers exports to the repositories that read one customer's records with the
 * customer in the same statement (the behaviour module's overview and record list): the start of a
 * statement over `customers` (aliased `c`) with what decides who may see the customer, to which the
 * caller adds its own columns (subqueries correlated on `id` and `appId`), so the whole is one
 * statement; and the customers a list shows (`listed`), which a list of records about customers (the
 * tasks module's) joins. Reached through the customers service (`customerVisibilityReadModel`); its
 * type is `CustomerVisibilityReadModel` of mapper.ts.
 */
import { type Database, crossProject } from '../../db/index.ts';
import type { Expression, Kysely } from 'kysely';

type Db = Kysely<Database>;

/** Who may see the customer (its project and owner), whether it is live, and whether a merge into it is still moving. */
const VISIBILITY = ['c.id', 'c.app_id', 'c.owner_id', 'c.status', 'c.merge_pending'] as const;

export const customerVisibilityReadModel = {
  /** The columns other tables' `customer_id` and `app_id` are correlated with. */
  id: 'c.id' as const,
  appId: 'c.app_id' as const,
  /** The customer of this id in whichever project it is (the path names the customer only: the caller checks the project). */
  byIdAnyProject(db: Db, customerId: string) {
    return db.selectFrom('customers as c').select(VISIBILITY).where('c.id', '=', customerId).modifyEnd(crossProject('record-by-id'));
  },
  /** The customer of this id in the project. */
  byId(db: Db, appId: string, customerId: string) {
    return db.selectFrom('customers as c').select(VISIBILITY).where('c.app_id', '=', appId).where('c.id', '=', customerId);
  },
  /**
   * The live customer of `project` whose id is `id` (a Sales member's own when `ownerId` is given),
   * selecting its name: an EXISTS operand, or a scalar subquery, correlated on the caller's columns
   * (the alerts' inbox keeps a member's notifications about customers they may see, in one statement).
   */
  liveWithId(db: Db, project: Expression<string>, id: Expression<string>, ownerId: number | null) {
    const q = db
      .selectFrom('customers as c')
      .select('c.name')
      .where('c.app_id', '=', project)
      .where('c.id', '=', id)
      .where('c.status', '=', 1);
    return ownerId === null ? q : q.where('c.owner_id', '=', ownerId);
  },
  /**
   * The customers the customer list shows (live; a Sales member's own when `ownerId` is given), with
   * their name: a subquery the caller joins its rows to by `id` (and the project), so who may see a
   * record about a customer is decided in the caller's one statement.
   */
  listed(db: Db, appId: string, ownerId: number | null) {
    const live = db
      .selectFrom('customers as c')
      .select(['c.id', 'c.app_id', 'c.owner_id', 'c.name'])
      .where('c.app_id', '=', appId)
      .where('c.status', '=', 1);
    return ownerId === null ? live : live.where('c.owner_id', '=', ownerId);
  },
};
