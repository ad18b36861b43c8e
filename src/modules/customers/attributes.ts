import type { CustomersTable } from '../../db/index.ts';

/**
 * How each built-in customer attribute is stored and named in requests: the metadata name
 * (camelCase, also accepted as a parameter), the snake_case request parameter, and the column.
 * Attributes a project adds beyond these are extension attributes, kept in the `ext` JSON column.
 */
export interface AttributeSpec {
  name: string;
  param: string;
  column: keyof CustomersTable;
  /** Stored as an integer column (option values are digits). */
  int?: boolean;
  maxLength: number;
}

const a = (name: string, param: string, column: keyof CustomersTable, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  name,
  param,
  column,
  maxLength: 255,
  ...extra,
});

export const ATTRIBUTES: AttributeSpec[] = [
  a('name', 'name', 'name'),
  a('phone', 'phone', 'phone', { maxLength: 32 }),
  a('fixedPhone', 'fixed_phone', 'fixed_phone', { maxLength: 40 }),
  a('email', 'email', 'email', { maxLength: 254 }),
  a('title', 'title', 'title'),
  a('company', 'company', 'company'),
  a('province', 'province', 'province', { maxLength: 64 }),
  a('city', 'city', 'city', { maxLength: 64 }),
  a('county', 'county', 'county', { maxLength: 64 }),
  a('address', 'address', 'address', { maxLength: 1000 }),
  a('sex', 'sex', 'sex', { int: true }),
  a('ageState', 'age_state', 'age_state', { int: true }),
  a('industry', 'industry', 'industry', { maxLength: 64 }),
  a('intentionality', 'intentionality', 'intentionality', { int: true }),
  a('grade', 'grade', 'grade', { int: true }),
  a('leadSource', 'lead_source', 'lead_source', { maxLength: 64 }),
  a('groupId', 'group_id', 'group_id', { maxLength: 64 }),
  a('svcUserId', 'svc_user_id', 'owner_id', { int: true }),
  a('promoterId', 'promoter_id', 'promoter_id', { maxLength: 64 }),
  a('createWay', 'create_way', 'create_way', { int: true }),
  a('platform', 'platform', 'platform', { maxLength: 32 }),
  a('from', 'from', 'from_source'),
  a('utmMedium', 'utm_medium', 'utm_medium'),
  a('utmCampaign', 'utm_campaign', 'utm_campaign'),
  a('utmContent', 'utm_content', 'utm_content'),
  a('buyedKeyword', 'buyed_keyword', 'buyed_keyword'),
  a('searchKeyword', 'search_keyword', 'search_keyword'),
  a('fromContentTitle', 'from_content_title', 'from_content_title', { maxLength: 500 }),
  a('fromContentLink', 'from_content_link', 'from_content_link', { maxLength: 2000 }),
  a('fromProvince', 'from_province', 'from_province', { maxLength: 64 }),
  a('fromCity', 'from_city', 'from_city', { maxLength: 64 }),
  a('getWay', 'get_way', 'get_way', { int: true }),
  a('source', 'source', 'source', { maxLength: 4000 }),
];

export const ATTRIBUTE_BY_NAME = new Map(ATTRIBUTES.map((s) => [s.name, s]));

/** Fields accepted outside the metadata: stored as given (bounded), not configurable. */
export const PLAIN_FIELDS: AttributeSpec[] = [
  a('headportraitUrl', 'headportrait_url', 'headportrait_url', { maxLength: 2000 }),
  a('dealUserId', 'deal_user_id', 'deal_user_id', { maxLength: 64 }),
];

/** A request value by its snake_case name, else its camelCase name; undefined when absent (null is absent too). */
export function readParam(input: Record<string, unknown>, spec: { param: string; name: string }): unknown {
  if (Object.hasOwn(input, spec.param) && input[spec.param] !== undefined && input[spec.param] !== null) return input[spec.param];
  if (Object.hasOwn(input, spec.name) && input[spec.name] !== null) return input[spec.name];
  return undefined;
}
