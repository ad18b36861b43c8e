import type { CustomersTable, Database } from '../../db/index.ts';
import type { AliasableExpression, ExpressionBuilder, OperandExpression, Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import type { customerHistoryReads } from './histories.repository.ts';
import type { customerVisibilityReadModel } from './visibility.repository.ts';
import type { risenCustomers } from './scores.repository.ts';
import type { ScoreReasonOut } from './schemas.ts';

export type CustomerRow = Selectable<CustomersTable>;

/** The read model the histories module's reads of a record's customer use (histories.repository.ts). */
export type CustomerHistoryReads = typeof customerHistoryReads;
export type { CardColumns, CustomerCardRow } from './histories.repository.ts';

/** A customer's score state as one value of the row aliased `c`: the scoring module's read model. */
export type ScoreStateOf = (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>) => AliasableExpression<unknown>;

/** A customer's score as the lists and the detail show it (docs/scoring.md). */
export interface CustomerScoreShown {
  score: number;
  scoreReasons: ScoreReasonOut[];
}

/** What the customers module shows of scores, from the scoring module: the state's read model, and how a project's rows show their score. */
export interface CustomerScoreView {
  stateOf: ScoreStateOf;
  shown(appId: string): Promise<(state: unknown) => CustomerScoreShown>;
}

/** The read model the scoring module's hot leads start from (the customers service exports it). */
export type RisenCustomersReadModel = typeof risenCustomers;
export type { RisenCustomer, RisenScope, ScoreColumns } from './scores.repository.ts';

/** The read model of one customer's visibility another module's repository starts its statement from (the customers service exports it). */
export type CustomerVisibilityReadModel = typeof customerVisibilityReadModel;

/**
 * The ids of the customers a merge's statement updates, as a subquery another module builds over its
 * own table (the merges module's aliases), so the update stays one statement.
 */
export type CustomerIdsQuery = (eb: ExpressionBuilder<Database, 'customers'>) => OperandExpression<string>;

/** The interface's Customer object, every field. */
export interface CustomerResponse {
  id: string;
  appId: string;
  name: string | null;
  headportraitUrl: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  email: string | null;
  svcUserId: string;
  groupId: string | null;
  sex: number | null;
  ageState: number | null;
  fixedPhone: string | null;
  industry: string | null;
  province: string | null;
  city: string | null;
  county: string | null;
  address: string | null;
  intentionality: number | null;
  grade: number | null;
  leadSource: string | null;
  createWay: number | null;
  platform: string | null;
  from: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmContent: string | null;
  buyedKeyword: string | null;
  searchKeyword: string | null;
  promoterId: string | null;
  fromContentTitle: string | null;
  fromContentLink: string | null;
  fromProvince: string | null;
  fromCity: string | null;
  getWay: number | null;
  source: string | null;
  allocationData: { allocationSvcUserId: string | null };
  status: number;
  whetherMerge: number;
  mergedCustomerId: string;
  createdAt: string;
  updatedAt: string;
  /** The project's custom field values by field name (docs/metadata.md); absent when it has none. */
  exts?: Record<string, string | number | string[]>;
  /** The engagement score now and its largest reasons (docs/scoring.md): on the detail and list items. */
  score?: number;
  scoreReasons?: ScoreReasonOut[];
}

export interface CustomerListItem extends CustomerResponse {
  isNew: number;
  groupName: string;
  newCount: number;
  /** The customer's latest activity (`last_activity_at`), null for none. */
  lastActivityAt: string | null;
  score: number;
  scoreReasons: ScoreReasonOut[];
}

export function toCustomer(r: CustomerRow, clock: Clock, whetherMerge = 0): CustomerResponse {
  const customer = plainCustomer(r, clock, whetherMerge);
  if (r.ext !== null) {
    const exts = extsOf(r.ext);
    if (Object.keys(exts).length > 0) customer.exts = exts;
  }
  return customer;
}

function plainCustomer(r: CustomerRow, clock: Clock, whetherMerge: number): CustomerResponse {
  return {
    id: r.id,
    appId: r.app_id,
    name: r.name,
    headportraitUrl: r.headportrait_url,
    company: r.company,
    title: r.title,
    phone: r.phone,
    email: r.email,
    svcUserId: String(r.owner_id),
    groupId: r.group_id,
    sex: r.sex,
    ageState: r.age_state,
    fixedPhone: r.fixed_phone,
    industry: r.industry,
    province: r.province,
    city: r.city,
    county: r.county,
    address: r.address,
    intentionality: r.intentionality,
    grade: r.grade,
    leadSource: r.lead_source,
    createWay: r.create_way,
    platform: r.platform,
    from: r.from_source,
    utmMedium: r.utm_medium,
    utmCampaign: r.utm_campaign,
    utmContent: r.utm_content,
    buyedKeyword: r.buyed_keyword,
    searchKeyword: r.search_keyword,
    promoterId: r.promoter_id,
    fromContentTitle: r.from_content_title,
    fromContentLink: r.from_content_link,
    fromProvince: r.from_province,
    fromCity: r.from_city,
    getWay: r.get_way,
    source: r.source,
    allocationData: { allocationSvcUserId: r.allocation_user_id },
    status: r.status,
    whetherMerge,
    mergedCustomerId: r.merged_customer_id ?? '',
    createdAt: clock.format(r.created_at),
    updatedAt: clock.format(r.updated_at),
  };
}

/** Stored custom values (the `ext` column's JSON object); {} for none or unreadable text. */
function extsOf(text: string | null): Record<string, string | number | string[]> {
  if (text === null || text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, string | number | string[]>)
      : {};
  } catch {
    return {};
  }
}
