import type { BehaviourRollupsTable, Database } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { EventMessage } from '../../events/outbox.ts';

/** Tables of ingested links and their views, written through the links module (LinkStore), in this order. */
export const LINK_TABLES = ['links', 'link_view_logs', 'link_view_durations'] as const;

/** The rows of records written straight from parsed items, per table. */
export interface PlanRows {
  links: Insertable<Database['links']>[];
  link_view_logs: Insertable<Database['link_view_logs']>[];
  link_view_durations: Insertable<Database['link_view_durations']>[];
  clues: Insertable<Database['clues']>[];
  calls: Insertable<Database['calls']>[];
  posts: Insertable<Database['posts']>[];
}

export const emptyPlanRows = (): PlanRows => ({ links: [], link_view_logs: [], link_view_durations: [], clues: [], calls: [], posts: [] });

/** The rows one validated batch writes (customers apart). */
export interface RowsPlan {
  rows: PlanRows;
  behaviourRows: Insertable<Database['behaviour_logs']>[];
  outbox: Insertable<Database['outbox']>[];
  rollups: Insertable<BehaviourRollupsTable>[];
  records: number;
}

/** What one validated batch writes, computed before any transaction opens. */
export interface WritePlan extends Omit<RowsPlan, 'outbox'> {
  appId: string;
  now: number;
  customers: { index: number; input: Record<string, unknown>; ownerId: number; id: string }[];
  /** Outbox rows are made when written: their ids order the events after the customers' own. */
  events: EventMessage[];
}

/**
 * A view log the public viewer is recording moves on with a beacon: its new totals and beacon state,
 * and the Duration items of the pages that changed (upserted at their positions). Written only if
 * the view's last beacon is still `fromSeq`; otherwise the whole plan is left out (`applied` false).
 */
export interface ViewProgressRows {
  appId: string;
  viewLogId: string;
  fromSeq: number;
  set: Updateable<Database['link_view_logs']>;
  durations: Insertable<Database['link_view_durations']>[];
}

/** What the viewer writes for one beacon, view or form: a batch's rows, and what only the viewer does. */
export interface ViewerRows extends RowsPlan {
  progress: ViewProgressRows | null;
  /** View logs made anonymously by a visitor, now attributed to a customer. */
  attribute: { appId: string; viewLogIds: string[]; customerId: string; viewerName: string | null } | null;
  /** The form record filled while viewing: the view log's clue. */
  viewClue: { appId: string; viewLogId: string; clueId: string; email?: string | null } | null;
  /** Site tracking's rows (docs/site-tracking.md), or null. */
  site: SiteRows | null;
  /** Set by the write: false when `progress` found the view moved on, or `site.close` the visit closed (nothing of the plan was written). */
  applied?: boolean;
  /** Set by the write with `applied` false: the project's daily quota of anonymous site records had no room for the plan's. */
  refusedForQuota?: boolean;
}

/** What the site snippet's collect calls, joins and visit sweep write beside their behaviour records. */
export interface SiteRows {
  appId: string;
  /** Visits begun or going on: inserted, or their last sign of life moved on (never back). */
  visits: Insertable<Database['site_visits']>[];
  /** An anonymous visitor's records, kept until joined. */
  anonymous: Insertable<Database['site_events']>[];
  /** A visitor tied to a customer, and its anonymous records (now written as the customer's) removed. */
  tie: { row: Insertable<Database['site_visitors']>; joined: string[] } | null;
  /** A silent visit's end, recorded once: only while the visit is open with this last sign of life. */
  close: { visitorId: string; id: string; lastAt: number; endedAt: number } | null;
  /** What anonymous records or a tie were computed from, checked in the transaction (see SiteGate.holds). */
  guard: SiteGuard | null;
  /**
   * The project's daily quota the anonymous records count against (the day, `yyyy-MM-dd` in the
   * server's zone, and its cap), or null: not counted. See SiteGate.
   */
  quota: { day: string; cap: number } | null;
}

/**
 * The visitor's state a write of anonymous records or of a tie was computed from. The write applies
 * only while the visitor is still tied to `tiedTo` (null: to nobody) as `verified` and, for a tie whose join read
 * every anonymous record (`joinedAll`), while the visitor has no anonymous record but those joined;
 * else nothing of the plan is written (`applied` false) and the caller computes it again. So an
 * anonymous record written while an identify joins the visitor is never left behind.
 */
export interface SiteGuard {
  visitorId: string;
  tiedTo: string | null;
  /** Whether that tie was verified (a tie written meanwhile may have verified it). */
  verified: boolean;
  joinedAll: boolean;
}

/**
 * Another transaction took the room of a project's daily quota after this group read it: the group
 * fails and is written again (the group commit splits it; each part reads the count anew).
 */
export class QuotaTaken extends Error {
  constructor(readonly appId: string) {
    super(`The daily quota of anonymous site records of project ${appId} was taken meanwhile`);
    this.name = 'QuotaTaken';
  }
}

/**
 * What the site module stores for the viewer write, in its transaction (built by the composition
 * root from the site module, which owns the site tables).
 */
export interface SiteStore {
  /**
   * Locks the guarded visitors of these rows (the transaction's) and reads their ties and the room
   * left in the daily quotas the rows count against: what the group's plans are checked with.
   */
  open(trx: Kysely<Database>, sites: SiteRows[]): Promise<SiteGate>;
  /** Records a silent visit's end once (`close`): false when it was closed meanwhile or came back to life. */
  closeVisit(trx: Kysely<Database>, s: SiteRows & { close: NonNullable<SiteRows['close']> }): Promise<boolean>;
  /** The site rows of the applied plans: visits, anonymous records, ties and the records they joined. */
  write(trx: Kysely<Database>, sites: SiteRows[]): Promise<void>;
}

/** The checks of one group's site rows, in its transaction, from what SiteStore.open read. */
export interface SiteGate {
  /** Whether the rows' anonymous records fit in the room left in their day's quota (true when not counted). */
  fits(s: SiteRows | null): boolean;
  /** Whether the rows' guard holds, given the plans of the group already taken. */
  holds(trx: Kysely<Database>, s: SiteRows): Promise<boolean>;
  /** Takes an applied plan's rows: their quota room and what they do to their visitor. */
  take(s: SiteRows): void;
  /** Counts what the group took against the quotas, last; throws QuotaTaken when another transaction took the room meanwhile. */
  finish(trx: Kysely<Database>): Promise<void>;
}
