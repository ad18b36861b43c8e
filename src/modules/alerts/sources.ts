import type { AlertSignal } from '../../events/alert-events.ts';
import type { FeedEvent } from '../../events/sequencer.ts';
import type { Clock } from '../../lib/time.ts';
import { scoreShown } from '../scoring/service.ts';
import { excerptOf, reasonFactsOf } from './words.ts';

/**
 * Where signals come from (docs/alerts.md "Signals"): events of the feed, read in feed order. Each
 * source turns one kind of event into steps: a reading's progress (its open, a page, its leave),
 * or a signal as it stands. Pure: names and visibility are looked up afterwards.
 */

/** The behaviour records whose bodies the evaluator reads (every other record is skipped unread): a view's open, pages, leave and form. */
export const READING_ACTIONS = ['link_view_log', 'file_view_duration', 'link_leave_log', 'link_view_clue'] as const;

/** A signal found in the feed, before its names and recipients are known. */
export interface SignalDraft {
  signal: AlertSignal;
  appId: string;
  /** What makes it one signal in its project (a retry or a second server finds the same key). */
  key: string;
  customerId: string;
  /** What it is about besides the customer (a link, a task, a note). */
  subject: string | null;
  at: number;
  /** The members it concerns: the customer's owner and the link's creator, a task's assignee, who is mentioned. */
  concerned: number[];
  /** Only the concerned members get it (a task due, a mention), whatever their scope. */
  personal: boolean;
  /** What its words say, as data (names are added later). */
  data: Record<string, unknown>;
  /** A hot lead folded into this reading (a view id): recorded, told with the reading's end. */
  foldedInto?: string;
  /** Told only in place of the signal of this key, when that one is recorded without being told (a reading's hot lead). */
  insteadOf?: string;
}

/** A step of a reading, or a signal. */
export type FeedStep =
  | { kind: 'open'; appId: string; viewId: string; linkId: string; customerId: string; owner: number | null; at: number }
  | { kind: 'page'; appId: string; viewId: string; at: number }
  | { kind: 'leave'; appId: string; viewId: string; at: number }
  /** A form filled during a view: its reader may have named themselves (a forward, shares.ts). */
  | { kind: 'reader'; appId: string; viewId: string; linkId: string; customerId: string; at: number }
  | { kind: 'signal'; draft: SignalDraft };

type Body = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const userId = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
};

function contentOf(body: Body): Body {
  if (typeof body.content !== 'string') return {};
  try {
    const parsed = JSON.parse(body.content) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Body) : {};
  } catch {
    return {};
  }
}

/** A customer's link view records: a view opens, a page is read for the first time, a form is filled in it, the view closes. */
function readingSteps(e: FeedEvent & { appId: string }, body: Body, clock: Clock): FeedStep[] {
  const customerId = str(body.customerId);
  const content = contentOf(body);
  const viewId = str(content.linkViewLogId);
  const at = (typeof body.when === 'string' ? clock.parse(body.when) : null) ?? e.createdAt;
  if (customerId === null || viewId === null) return [];
  if (body.action === 'link_view_log') {
    const linkId = str(content.linkId);
    return linkId === null ? [] : [{ kind: 'open', appId: e.appId, viewId, linkId, customerId, owner: userId(body.svcUserId), at }];
  }
  if (body.action === 'file_view_duration') return [{ kind: 'page', appId: e.appId, viewId, at }];
  if (body.action === 'link_leave_log') return [{ kind: 'leave', appId: e.appId, viewId, at }];
  if (body.action === 'link_view_clue') {
    const linkId = str(content.linkId);
    return linkId === null ? [] : [{ kind: 'reader', appId: e.appId, viewId, linkId, customerId, at }];
  }
  return [];
}

/** A note that mentions members for the first time: one signal per member mentioned (not its author). */
function mentionSteps(e: FeedEvent & { appId: string }, body: Body): FeedStep[] {
  const noteId = str(body.id);
  const customerId = str(body.customerId);
  const author = userId(body.authorId);
  const mentioned = Array.isArray(body.newMentions) ? body.newMentions.map(userId) : [];
  if (noteId === null || customerId === null) return [];
  const excerpt = excerptOf(typeof body.content === 'string' ? body.content : '');
  return [...new Set(mentioned)]
    .filter((u): u is number => u !== null && u !== author)
    .map((u) => ({
      kind: 'signal' as const,
      draft: {
        signal: 'mention' as const,
        appId: e.appId,
        key: `mention:${noteId}:${u}`,
        customerId,
        subject: noteId,
        at: e.createdAt,
        concerned: [u],
        personal: true,
        data: { noteId, authorId: author, excerpt, mentionedId: u },
      },
    }));
}

/** A task come due: a signal for its assignee, once per due time. */
function dueSteps(e: FeedEvent & { appId: string }, body: Body): FeedStep[] {
  const taskId = str(body.id);
  const customerId = str(body.customerId);
  const assignee = userId(body.assigneeId);
  if (taskId === null || customerId === null || assignee === null) return [];
  const dueAt = str(body.dueAt) ?? '';
  const title = str(body.title) ?? '';
  return [
    {
      kind: 'signal',
      draft: {
        signal: 'task_due',
        appId: e.appId,
        key: `task_due:${taskId}:${dueAt}`,
        customerId,
        subject: taskId,
        at: e.createdAt,
        concerned: [assignee],
        personal: true,
        data: { taskId, title, dueAt },
      },
    },
  ];
}

/**
 * The hot-lead source: the scoring module announces a customer as a hot lead (a rise to its project's
 * `hotScore`, docs/scoring.md "Hot leads announced") with a `Customer` `hot` event, whose body is
 * `{id (the customer), appId, svcUserId (its owner), score, scoreReasons: string[], reasonDetails}` (the
 * reasons structured, worded in each language). One signal per
 * customer and day (the key), to the customer's owner; one announced during a reading is folded into
 * it (readings.ts, foldHotLeads).
 */
export const HOT_LEAD_EVENT = { domainType: 'Customer', eventType: 'hot' } as const;

function hotLeadSteps(e: FeedEvent & { appId: string }, body: Body, clock: Clock): FeedStep[] {
  const customerId = str(body.id) ?? str(body.customerId);
  if (customerId === null) return [];
  const owner = userId(body.svcUserId);
  // One decimal, as the customer's page shows it (the event's score is so already; a producer's may not be).
  const score = typeof body.score === 'number' && Number.isFinite(body.score) ? scoreShown(body.score) : null;
  const reasons = Array.isArray(body.scoreReasons) ? body.scoreReasons.filter((r): r is string => typeof r === 'string').slice(0, 3) : [];
  // The same reasons structured, worded in each language (kept only if they are the same reasons).
  const details = reasonFactsOf(body.reasonDetails, 3);
  return [
    {
      kind: 'signal',
      draft: {
        signal: 'hot_lead',
        appId: e.appId,
        key: `hot_lead:${customerId}:${clock.day(e.createdAt)}`,
        customerId,
        subject: null,
        at: e.createdAt,
        concerned: owner === null ? [] : [owner],
        personal: false,
        data: { score, reasons, ...(details?.length === reasons.length ? { reasonDetails: details } : {}) },
      },
    },
  ];
}

type Source = (e: FeedEvent & { appId: string }, body: Body, clock: Clock) => FeedStep[];

/** The sources, by `domainType.event_type`: the one table to extend with a new signal. */
const SOURCES: Record<string, Source> = {
  'BehaviourLog.create': readingSteps,
  'Note.create': mentionSteps,
  'Note.update': mentionSteps,
  'Task.due': dueSteps,
  [`${HOT_LEAD_EVENT.domainType}.${HOT_LEAD_EVENT.eventType}`]: hotLeadSteps,
};

/** What one event of the feed says to the alerts: nothing, most of the time. */
export function stepsOf(e: FeedEvent & { appId: string }, clock: Clock): FeedStep[] {
  const source = SOURCES[`${e.domainType}.${e.event_type}`];
  if (source === undefined || e.body === null || typeof e.body !== 'object') return [];
  return source(e, e.body as Body, clock);
}
