import { failure } from '../../http/errors.ts';

/**
 * A playbook's definition (docs/playbooks.md "A playbook"): its trigger, filters, actions and limit as
 * the API takes them, checked and normalised here (pure: whether a link, group, sequence or member
 * exists is the service's question).
 */

/** The triggers of their own; any action of the behaviour catalogue is a trigger too (its records). */
export const TRIGGER_KINDS = [
  'deck_read',
  'link_open',
  'site_visit',
  'form_submitted',
  'mail_opened',
  'mail_clicked',
  'score_above',
] as const;
export const ACTION_TYPES = ['create_task', 'notify', 'enroll', 'exit_sequence', 'move_to_group', 'set_field', 'webhook'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const LIMIT_KINDS = ['once', 'per_period', 'every_time'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/** The behaviour records each trigger of its own is made of. */
export const TRIGGER_ACTIONS: Record<string, readonly string[]> = {
  deck_read: ['link_view_log', 'file_view_duration', 'link_leave_log'],
  link_open: ['link_view_log'],
  site_visit: ['access_site', 'web_page_view'],
  form_submitted: ['submit_form', 'app_submit_form'],
  mail_opened: ['mail_open'],
  mail_clicked: ['mail_click'],
  // Any record of the customer may have moved its score.
  score_above: [],
};

export const MAX_ACTIONS = 10;
export const NAME_MAX = 100;
export const TITLE_MAX = 200;
const ID_MAX = 64;
const FIELD_VALUE_MAX = 255;
const URL_MAX = 2000;

export interface Conditions {
  linkId?: string;
  fileId?: string;
  page?: number;
  readShare?: number;
  seconds?: number;
  url?: string;
  repeats?: { count: number; withinDays: number };
  score?: number;
}
export interface Trigger {
  kind: string;
  conditions: Conditions;
}
export interface Filters {
  ownerIds?: number[];
  groupIds?: string[];
  fields?: Record<string, string>;
}
export type Action =
  | { type: 'create_task'; title: string; kind: 'call' | 'email' | 'todo'; dueInHours: number }
  | { type: 'notify'; to: 'owner' | number[]; channels: ('inbox' | 'chat')[] }
  | { type: 'enroll'; sequenceId: string }
  | { type: 'exit_sequence'; sequenceId: string | null }
  | { type: 'move_to_group'; groupId: string }
  | { type: 'set_field'; key: string; value: string }
  | { type: 'webhook'; url: string };
export interface Limit {
  kind: LimitKind;
  days: number | null;
}
export interface Definition {
  name: string;
  enabled: boolean;
  trigger: Trigger;
  filters: Filters;
  actions: Action[];
  limit: Limit;
}

type Obj = Record<string, unknown>;
const invalid = (detail: string) => failure('playbook_invalid', detail);
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function text(v: unknown, what: string, max: number): string {
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`${what} is required`);
  const t = v.trim();
  if (Array.from(t).length > max) throw invalid(`${what} must be at most ${max} characters`);
  return t;
}

function int(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalid(`${what} must be a whole number from ${min} to ${max}`);
  return v;
}

function id(v: unknown, what: string): string {
  const s = text(v, what, ID_MAX);
  if (!/^[A-Za-z0-9_.:-]+$/.test(s)) throw invalid(`${what} is not an id`);
  return s;
}

function conditionsOf(kind: string, raw: unknown): Conditions {
  if (raw === undefined || raw === null) raw = {};
  if (!isObj(raw)) throw invalid('trigger.conditions must be an object');
  const known = ['linkId', 'fileId', 'page', 'readShare', 'seconds', 'url', 'repeats', 'score'];
  const extra = Object.keys(raw).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalid(`trigger.conditions.${extra.slice(0, 40)} is not a condition`);
  const c: Conditions = {};
  if (raw.linkId !== undefined) c.linkId = id(raw.linkId, 'trigger.conditions.linkId');
  if (raw.fileId !== undefined) c.fileId = id(raw.fileId, 'trigger.conditions.fileId');
  if (raw.page !== undefined) c.page = int(raw.page, 'trigger.conditions.page', 1, 10_000);
  if (raw.readShare !== undefined) c.readShare = int(raw.readShare, 'trigger.conditions.readShare', 1, 100);
  if (raw.seconds !== undefined) c.seconds = int(raw.seconds, 'trigger.conditions.seconds', 1, 86_400);
  if (raw.url !== undefined) c.url = text(raw.url, 'trigger.conditions.url', URL_MAX);
  if (raw.score !== undefined) {
    if (typeof raw.score !== 'number' || !Number.isFinite(raw.score) || raw.score <= 0 || raw.score > 1_000_000)
      throw invalid('trigger.conditions.score must be a number above 0');
    c.score = raw.score;
  }
  if (raw.repeats !== undefined) {
    if (!isObj(raw.repeats)) throw invalid('trigger.conditions.repeats must be {count, withinDays}');
    c.repeats = {
      count: int(raw.repeats.count, 'trigger.conditions.repeats.count', 1, 100),
      withinDays: int(raw.repeats.withinDays, 'trigger.conditions.repeats.withinDays', 1, 90),
    };
  }
  const deck = kind === 'deck_read' || kind === 'link_open';
  if (!deck && (c.linkId !== undefined || c.fileId !== undefined || c.readShare !== undefined || c.page !== undefined))
    throw invalid(`trigger.conditions: linkId, fileId, page and readShare are conditions of deck_read and link_open, not ${kind}`);
  if (kind !== 'deck_read' && c.seconds !== undefined) throw invalid('trigger.conditions.seconds is a condition of deck_read');
  if (kind !== 'site_visit' && kind !== 'mail_clicked' && c.url !== undefined)
    throw invalid('trigger.conditions.url is a condition of site_visit and mail_clicked');
  if ((kind === 'score_above') !== (c.score !== undefined))
    throw invalid('trigger.conditions.score is required by score_above, and only by it');
  return c;
}

/** The trigger: a kind of its own or an action of the catalogue (`isCatalogueAction`), with its conditions. */
export function triggerOf(raw: unknown, isCatalogueAction: (action: string) => boolean): Trigger {
  if (!isObj(raw)) throw invalid('trigger is required: {kind, conditions}');
  const kind = typeof raw.kind === 'string' ? raw.kind.trim() : '';
  if (!(TRIGGER_KINDS as readonly string[]).includes(kind) && !isCatalogueAction(kind))
    throw invalid(
      `trigger.kind ${JSON.stringify(kind.slice(0, 40))} is unknown: use ${TRIGGER_KINDS.join(', ')} or an action of the catalogue`,
    );
  return { kind, conditions: conditionsOf(kind, raw.conditions) };
}

export function filtersOf(raw: unknown): Filters {
  if (raw === undefined || raw === null) return {};
  if (!isObj(raw)) throw invalid('filters must be an object');
  const f: Filters = {};
  if (raw.ownerIds !== undefined) {
    if (!Array.isArray(raw.ownerIds) || raw.ownerIds.length > 100) throw invalid('filters.ownerIds must be a list of at most 100 members');
    f.ownerIds = [...new Set(raw.ownerIds.map((u) => int(u, 'filters.ownerIds[]', 1, 2_147_483_647)))];
  }
  if (raw.groupIds !== undefined) {
    if (!Array.isArray(raw.groupIds) || raw.groupIds.length > 100) throw invalid('filters.groupIds must be a list of at most 100 groups');
    f.groupIds = [...new Set(raw.groupIds.map((g) => id(g, 'filters.groupIds[]')))];
  }
  if (raw.fields !== undefined) {
    if (!isObj(raw.fields) || Object.keys(raw.fields).length > 20) throw invalid('filters.fields must be an object of at most 20 fields');
    f.fields = {};
    for (const [k, v] of Object.entries(raw.fields)) {
      const key = text(k, 'filters.fields key', ID_MAX);
      if (typeof v !== 'string' && typeof v !== 'number') throw invalid(`filters.fields.${key} must be a text or a number`);
      f.fields[key] = String(v).slice(0, FIELD_VALUE_MAX);
    }
  }
  return f;
}

function notifyOf(raw: Obj): Action {
  const to = raw.to ?? 'owner';
  let who: 'owner' | number[];
  if (to === 'owner') who = 'owner';
  else if (Array.isArray(to) && to.length > 0 && to.length <= 20)
    who = [...new Set(to.map((u) => int(u, 'notify.to[]', 1, 2_147_483_647)))];
  else throw invalid("notify.to is 'owner' or a list of at most 20 member ids");
  const channels = raw.channels ?? ['inbox'];
  if (!Array.isArray(channels) || channels.length === 0 || channels.some((c) => c !== 'inbox' && c !== 'chat'))
    throw invalid("notify.channels is a list of 'inbox' and 'chat'");
  return { type: 'notify', to: who, channels: [...new Set(channels as ('inbox' | 'chat')[])] };
}

function actionOf(raw: unknown, i: number): Action {
  if (!isObj(raw)) throw invalid(`actions[${i}] must be an object`);
  const at = `actions[${i}]`;
  switch (raw.type) {
    case 'create_task': {
      const kind = raw.kind ?? 'todo';
      if (kind !== 'call' && kind !== 'email' && kind !== 'todo') throw invalid(`${at}.kind is call, email or todo`);
      const due = raw.dueInHours === undefined ? 24 : int(raw.dueInHours, `${at}.dueInHours`, 0, 24 * 90);
      return { type: 'create_task', title: text(raw.title, `${at}.title`, TITLE_MAX), kind, dueInHours: due };
    }
    case 'notify':
      return notifyOf(raw);
    case 'enroll':
      return { type: 'enroll', sequenceId: id(raw.sequenceId, `${at}.sequenceId`) };
    case 'exit_sequence':
      return {
        type: 'exit_sequence',
        sequenceId: raw.sequenceId === undefined || raw.sequenceId === null ? null : id(raw.sequenceId, `${at}.sequenceId`),
      };
    case 'move_to_group':
      return { type: 'move_to_group', groupId: id(raw.groupId, `${at}.groupId`) };
    case 'set_field': {
      if (typeof raw.value !== 'string' && typeof raw.value !== 'number') throw invalid(`${at}.value must be a text or a number`);
      const value = String(raw.value);
      if (Array.from(value).length > FIELD_VALUE_MAX) throw invalid(`${at}.value must be at most ${FIELD_VALUE_MAX} characters`);
      return { type: 'set_field', key: text(raw.key, `${at}.key`, ID_MAX), value };
    }
    case 'webhook':
      return { type: 'webhook', url: text(raw.url, `${at}.url`, URL_MAX) };
    default:
      throw invalid(`${at}.type is one of ${ACTION_TYPES.join(', ')}`);
  }
}

export function actionsOf(raw: unknown): Action[] {
  if (!Array.isArray(raw) || raw.length === 0) throw invalid('actions is required: a list of at least one action');
  if (raw.length > MAX_ACTIONS) throw invalid(`actions: at most ${MAX_ACTIONS}`);
  const out = raw.map(actionOf);
  if (out.filter((a) => a.type === 'webhook').length > 1) throw invalid('actions: at most one webhook');
  return out;
}

/** `once` (the default), `every_time`, or `{kind: 'per_period', days}` (a string kind is taken too). */
export function limitOf(raw: unknown): Limit {
  if (raw === undefined || raw === null || raw === 'once') return { kind: 'once', days: null };
  if (raw === 'every_time') return { kind: 'every_time', days: null };
  const o = isObj(raw) ? raw : { kind: raw };
  if (o.kind === 'once' || o.kind === 'every_time') return { kind: o.kind, days: null };
  if (o.kind !== 'per_period') throw invalid(`limit is one of ${LIMIT_KINDS.join(', ')}`);
  return { kind: 'per_period', days: int(o.days, 'limit.days', 1, 365) };
}

/** A whole definition from a request's body; `current`: a change's starting point (what it does not give stays). */
export function definitionOf(body: Obj, isCatalogueAction: (a: string) => boolean, current?: Definition): Definition {
  const name = body.name === undefined && current ? current.name : text(body.name, 'name', NAME_MAX);
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalid('enabled must be true or false');
  return {
    name,
    enabled: typeof body.enabled === 'boolean' ? body.enabled : (current?.enabled ?? true),
    trigger: body.trigger === undefined && current ? current.trigger : triggerOf(body.trigger, isCatalogueAction),
    filters: body.filters === undefined && current ? current.filters : filtersOf(body.filters),
    actions: body.actions === undefined && current ? current.actions : actionsOf(body.actions),
    limit: body.limit === undefined && current ? current.limit : limitOf(body.limit),
  };
}

/** The behaviour actions whose records a trigger reads. */
export function actionsRead(trigger: Trigger): readonly string[] {
  return TRIGGER_ACTIONS[trigger.kind] ?? [trigger.kind];
}
