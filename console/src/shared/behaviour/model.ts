/**
 * A behaviour record as a person reads it: what happened, and the details that matter for each kind
 * (pages read and for how long, a call's length, the pages of a site visit). Pure: the component only
 * translates and draws.
 */

/** One page turn of a link view: the page and milliseconds on it, as strings. */
export interface PageDuration {
  pageIndex?: string | null;
  duration?: string | null;
  fileName?: string | null;
}

/** The fields of a behaviour record the timeline reads (docs/histories.md). */
export interface BehaviourLike {
  action: string;
  content: string | null;
  when: string;
  dealUserName?: string | null;
  duration?: number | null;
  handleState?: string;
  linkDetail?: { name?: string | null } | null;
  linkViewLog?: {
    linkName?: string | null;
    totalDuration?: number | null;
    totalPage?: number | null;
    durations?: readonly PageDuration[] | null;
  } | null;
  webAccessLog?: Record<string, unknown> | null;
  webPageViewLogs?: readonly Record<string, unknown>[] | null;
}

export type BehaviourKind = 'link' | 'call' | 'site' | 'page' | 'customer' | 'message' | 'deal' | 'note' | 'task' | 'other';

/** A page read, and for how long (ms). */
export interface PageRead {
  page: number;
  ms: number;
}

export interface BehaviourView {
  kind: BehaviourKind;
  /** The key under customer.actions, and its values. */
  titleKey: string;
  titleValues: Record<string, string>;
  /** Link views: the pages and time on each, in page order. */
  pages?: PageRead[];
  /** Link views: the whole time read (ms). */
  totalMs?: number;
  /** Calls: seconds, when known. */
  callSeconds?: number;
  callPending?: boolean;
  /** Site visits: the titles (or addresses) of the pages viewed. */
  sitePages?: string[];
  money?: string;
}

const LINK_ACTIONS = new Set(['link_view_log', 'link_leave_log', 'link_view_clue', 'file_view_duration', 'link_spread']);
const SEND_DATA = /^send_data_by_/;
const SITE_KEY_ACTIONS = new Set(['submit_form', 'download_file', 'play_media', 'contact_service']);
const APP_KEY_ACTIONS = new Set(['app_submit_form', 'app_download_file', 'app_play_media', 'app_contact_service']);

const KNOWN = new Set([
  'create',
  'call',
  'call_end',
  'access_site',
  'access_site_end',
  'web_page_view',
  'web_page_leave',
  'send_message',
  'visit_record',
  'customer_record',
  'deal_record',
  'remote_demo',
]);

/** The record's content: a JSON string of an object, else an empty one. */
export function contentOf(record: Pick<BehaviourLike, 'content'>): Record<string, unknown> {
  if (!record.content) return {};
  try {
    const parsed: unknown = JSON.parse(record.content);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/** Time on each page of a link view, from its durations (milliseconds as strings), pages in order. */
export function pagesRead(durations: readonly PageDuration[] | null | undefined): PageRead[] {
  const byPage = new Map<number, number>();
  for (const d of durations ?? []) {
    const page = Number(d.pageIndex);
    const ms = Number(d.duration);
    if (!Number.isFinite(page) || !Number.isFinite(ms) || ms < 0) continue;
    byPage.set(page, (byPage.get(page) ?? 0) + ms);
  }
  return [...byPage].sort((a, b) => a[0] - b[0]).map(([page, ms]) => ({ page, ms }));
}

export function describeBehaviour(record: BehaviourLike): BehaviourView {
  const content = contentOf(record);
  const action = record.action;
  if (LINK_ACTIONS.has(action) || SEND_DATA.test(action)) {
    const name = text(record.linkDetail?.name) ?? text(record.linkViewLog?.linkName) ?? text(content.title) ?? '';
    if (SEND_DATA.test(action)) return { kind: 'message', titleKey: 'send_data', titleValues: { name } };
    // A page turn names its page when the server said which (the viewer's records do).
    const page = action === 'file_view_duration' ? text(content.page) : undefined;
    const view: BehaviourView =
      page === undefined
        ? { kind: 'link', titleKey: action, titleValues: { name } }
        : { kind: 'link', titleKey: 'file_view_duration_page', titleValues: { name, page } };
    if (action === 'link_view_log' || action === 'link_leave_log') {
      const pages = pagesRead(record.linkViewLog?.durations);
      const total = Number(record.linkViewLog?.totalDuration ?? NaN);
      view.pages = pages;
      view.totalMs = Number.isFinite(total) && total > 0 ? total : pages.reduce((s, p) => s + p.ms, 0);
    }
    return view;
  }
  if (action === 'call' || action === 'call_end') {
    const seconds = record.duration ?? (typeof content.duration === 'number' ? content.duration : undefined);
    return {
      kind: 'call',
      titleKey: action,
      titleValues: {},
      ...(seconds !== undefined && seconds !== null ? { callSeconds: seconds } : {}),
      callPending: record.handleState === '0',
    };
  }
  if (action === 'access_site' || action === 'access_site_end') {
    const log = record.webAccessLog ?? content;
    const site = text(log.title) ?? text(log.site) ?? text(content.site) ?? '';
    const sitePages = (record.webPageViewLogs ?? []).map((p) => text(p.title) ?? text(p.url)).filter((p): p is string => p !== undefined);
    return { kind: 'site', titleKey: action, titleValues: { site }, sitePages };
  }
  if (action === 'web_page_view' || action === 'web_page_leave') {
    return { kind: 'page', titleKey: action, titleValues: { title: text(content.title) ?? text(content.url) ?? '' } };
  }
  if (action === 'deal_record') {
    const money = text(content.money);
    return { kind: 'deal', titleKey: action, titleValues: {}, ...(money ? { money } : {}) };
  }
  // The site's key behaviours (docs/site-tracking.md): on which page; an app's name no page.
  if (SITE_KEY_ACTIONS.has(action))
    return { kind: 'page', titleKey: action, titleValues: { title: text(content.title) ?? text(content.url) ?? '' } };
  if (APP_KEY_ACTIONS.has(action)) return { kind: 'page', titleKey: action, titleValues: {} };
  if (action === 'send_message') return { kind: 'message', titleKey: action, titleValues: {} };
  // The project's own e-mails (a campaign's or a sequence step's, docs/campaigns.md): sent with its subject, opened, clicked.
  if (action === 'mail_sent') {
    const subject = text(content.title);
    return subject
      ? { kind: 'message', titleKey: 'mail_sent', titleValues: { subject } }
      : { kind: 'message', titleKey: 'mail_sentAny', titleValues: {} };
  }
  if (action === 'mail_open' || action === 'mail_click') return { kind: 'message', titleKey: action, titleValues: {} };
  // The team's own records (docs/tasks.md): a note written, a task made; the timeline shows the note or task itself under them.
  if (action === 'member_note') return { kind: 'note', titleKey: action, titleValues: {} };
  if (action === 'member_task') return { kind: 'task', titleKey: action, titleValues: {} };
  if (KNOWN.has(action)) return { kind: action === 'create' ? 'customer' : 'other', titleKey: action, titleValues: {} };
  return { kind: 'other', titleKey: 'other', titleValues: { action } };
}

/** A duration as hours, minutes and seconds: the unit keys of customer.duration and their values. */
export function durationParts(ms: number): { key: 'seconds' | 'minutes' | 'hours'; values: Record<string, number> } {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return { key: 'hours', values: { h, m } };
  if (m > 0) return { key: 'minutes', values: { m, s } };
  return { key: 'seconds', values: { s } };
}
