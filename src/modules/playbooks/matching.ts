import type { Conditions, Filters, Limit, Trigger } from './definition.ts';

/**
 * Whether what a customer did matches a playbook (docs/playbooks.md "How a playbook is evaluated"):
 * pure, shared by the evaluator (the feed) and the dry run (the last 30 days' records).
 */

/** A deck's reading in a view, as stored when the record is read: per file read, the share of its pages and the time. */
export interface DeckFacts {
  viewId: string;
  linkId: string | null;
  files: { fileId: string; pages: number[]; pageCount: number; ms: number }[];
}

/** One thing a customer did: a behaviour record (with its view's reading, a URL) or a score seen. */
export interface Occurrence {
  appId: string;
  /** The feed event (or, in a dry run, the record) it comes from. */
  eventId: string;
  customerId: string;
  /** When the customer did it. */
  at: number;
  /** When it was recorded (the lag is measured from here). */
  recordedAt: number;
  /** The behaviour action; null for a score. */
  action: string | null;
  deck?: DeckFacts;
  url?: string;
  score?: number;
  linkId?: string;
}

/** What a customer is, for the filters. */
export interface CustomerFacts {
  id: string;
  ownerId: number;
  groupId: string | null;
  name: string | null;
  fields: Record<string, string>;
}

const share = (f: { pages: number[]; pageCount: number }) => (f.pageCount > 0 ? (100 * f.pages.length) / f.pageCount : 0);

function deckMatches(c: Conditions, o: Occurrence): boolean {
  const deck = o.deck;
  if (deck === undefined) return false;
  if (c.linkId !== undefined && deck.linkId !== c.linkId) return false;
  const files = deck.files.filter((f) => c.fileId === undefined || f.fileId === c.fileId);
  if (files.length === 0) return c.readShare === undefined && c.seconds === undefined && c.page === undefined && c.fileId === undefined;
  return files.some(
    (f) =>
      (c.readShare === undefined || share(f) >= c.readShare) &&
      (c.seconds === undefined || f.ms / 1000 >= c.seconds) &&
      (c.page === undefined || f.pages.includes(c.page)),
  );
}

function urlMatches(c: Conditions, o: Occurrence): boolean {
  return c.url === undefined || (o.url !== undefined && o.url.toLowerCase().includes(c.url.toLowerCase()));
}

/** Whether the occurrence is the trigger, its conditions met (repeats apart: they count hits). */
export function matches(t: Trigger, o: Occurrence): boolean {
  const c = t.conditions;
  switch (t.kind) {
    case 'deck_read':
      return o.action !== null && ['link_view_log', 'file_view_duration', 'link_leave_log'].includes(o.action) && deckMatches(c, o);
    case 'link_open':
      return (
        o.action === 'link_view_log' && (c.linkId === undefined || o.linkId === c.linkId) && (c.fileId === undefined || deckMatches(c, o))
      );
    case 'site_visit':
      return (o.action === 'access_site' || o.action === 'web_page_view') && urlMatches(c, o);
    case 'form_submitted':
      return o.action === 'submit_form' || o.action === 'app_submit_form';
    case 'mail_opened':
      return o.action === 'mail_open';
    case 'mail_clicked':
      return o.action === 'mail_click' && urlMatches(c, o);
    case 'score_above':
      return o.score !== undefined && o.score >= (c.score ?? Infinity);
    default:
      return o.action === t.kind;
  }
}

const DAY_MS = 86_400_000;

/**
 * The hit an occurrence makes: the key that makes it one (a view is one reading however many records
 * it has; a score above the value is one per customer, or per period). Repeats count hits.
 */
export function hitKey(t: Trigger, limit: Limit, o: Occurrence): string {
  if (t.kind === 'score_above') {
    const bucket = limit.kind === 'per_period' && limit.days !== null ? `:${Math.floor(o.at / (limit.days * DAY_MS))}` : '';
    return `score:${o.customerId}${bucket}`;
  }
  if (o.deck !== undefined && (t.kind === 'deck_read' || t.kind === 'link_open')) return `view:${o.deck.viewId}`;
  return `record:${o.eventId}`;
}

/** How many hits the trigger needs within how long (1 within any time without repeats). */
export function needed(t: Trigger): { count: number; withinMs: number } {
  const r = t.conditions.repeats;
  return r === undefined ? { count: 1, withinMs: Infinity } : { count: r.count, withinMs: r.withinDays * DAY_MS };
}

/** Whether the customer passes the filters. */
export function passes(f: Filters, c: CustomerFacts): boolean {
  if (f.ownerIds !== undefined && !f.ownerIds.includes(c.ownerId)) return false;
  if (f.groupIds !== undefined && (c.groupId === null || !f.groupIds.includes(c.groupId))) return false;
  for (const [k, v] of Object.entries(f.fields ?? {})) if ((c.fields[k] ?? '') !== v) return false;
  return true;
}

/** The run key: once per customer for `once`, once per hit otherwise (a period is checked against the last run). */
export function runKey(playbookId: string, limit: Limit, customerId: string, hit: string): string {
  return limit.kind === 'once' ? `${playbookId}:${customerId}` : `${playbookId}:${hit}`;
}

/** The period a `per_period` playbook waits after a run before it acts on the customer again (0 otherwise). */
export const periodMs = (limit: Limit): number => (limit.kind === 'per_period' && limit.days !== null ? limit.days * DAY_MS : 0);
