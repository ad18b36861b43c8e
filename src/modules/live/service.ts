import type { AppContext } from '../../context.ts';
import { type FeedEvent, lastPosition, oldestPosition, readFeed, toMessage } from '../../events/sequencer.ts';
import { AppError, badRequest, rateLimited } from '../../http/errors.ts';
import type { DefineJob, JobDefinition } from '../../lib/jobs.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { HistoriesService } from '../histories/service.ts';

/** Events read per project per poll at most; a longer backlog is read over the next polls. */
const READ_BATCH = 500;
/** How often an open stream's token and membership are checked again when no event comes (docs/live.md). */
export const ACCESS_CHECK_MS = 2000;
/** Retry-After of a stream refused for the caps: streams end when their clients go, not on a clock. */
const CAP_RETRY_AFTER_S = 5;

/** The poller's background job. */
export const LIVE_POLL_JOB = 'live-poll';
/** The longest wait after polls that failed in a row (the database unreachable). */
const POLL_MAX_BACKOFF_MS = 5000;

/** What the poller's job runs. */
export interface LivePoller {
  /** Whether streams are open (and the service not closed): the poller reads nothing otherwise. */
  active(): boolean;
  /** One look at the feed for the open streams (their access checked again when it is due). */
  poll(): Promise<void>;
}

/**
 * The poller as a background job (src/lib/jobs.ts): the first stream opened starts it (a poke), it
 * looks at the feed every `pollMs` while streams are open and reads nothing while none is; a poll
 * that fails is tried again after a wait doubling from `pollMs` up to 5 s.
 */
export function livePollJob(poller: LivePoller, pollMs: number): JobDefinition {
  return {
    name: LIVE_POLL_JOB,
    idleMs: pollMs,
    startOnPoke: true,
    maxBackoffMs: Math.max(pollMs, POLL_MAX_BACKOFF_MS),
    async tick() {
      if (poller.active()) await poller.poll();
      return 'idle';
    },
  };
}

/** What the live service is built with. */
export interface LiveDeps {
  access: AccessService;
  accounts: AccountsService;
  histories: HistoriesService;
  /** Defines the poller's job with the process's other background jobs. */
  defineJob: DefineJob;
}

/** One message of the stream: the feed's event message, its feed position as the SSE id. */
export interface LiveMessage {
  seq: number;
  event: string;
  data: ReturnType<typeof toMessage> & { createdAt: string };
}

/** What the route gives the service for one open stream. */
export interface LiveSink {
  /** Sends messages in feed order. */
  send(messages: LiveMessage[]): void;
  /** Ends the stream: the caller's access is gone (member removed, token revoked, project deleted). */
  close(why: string): void;
}

/** Who opens a stream: the user, and the access token the stream lives by. */
export interface LiveCaller {
  userId: number;
  token: string | undefined;
}

interface Subscriber {
  readonly appId: string;
  readonly caller: LiveCaller;
  /** Taken again at every access check: a role changed since the stream opened filters from then on. */
  membership: Membership;
  readonly sink: LiveSink;
  cursor: number;
}

/**
 * Live events (docs/live.md): the project's events as they reach the feed, streamed to its members.
 * One poller per process (a background job) reads the feed (the outbox in commit order, sequenced by the relay) for
 * the projects that have open streams, so a stream sees every server's and every worker's events.
 * A manager sees every event; a Sales member sees those about their own customers (the body's
 * `svcUserId`) and about their own links (a behaviour record whose content names a link they created).
 */
export function createLiveService(ctx: AppContext, deps: LiveDeps) {
  const { access, accounts, histories } = deps;
  const db = ctx.database.db;
  const clock = ctx.clock;
  const { livePollMs: pollMs, liveMaxStreams, liveMaxStreamsPerUser } = ctx.config;
  const byApp = new Map<string, Set<Subscriber>>();
  /** Open (and opening) streams, in all and per user: the caps are checked and taken before any await. */
  let open = 0;
  const perUser = new Map<number, number>();
  let seen = 0;
  let closed = false;
  let checkedAt = clock.now();

  function release(userId: number): void {
    open -= 1;
    const n = (perUser.get(userId) ?? 1) - 1;
    if (n <= 0) perUser.delete(userId);
    else perUser.set(userId, n);
  }

  /**
   * Whether the stream's caller still may read it: the token still valid (not logged out, revoked
   * with its client, dropped by a password reset, expired), the account still enabled, and still a
   * member of the live project. Both reads go through the access caches, emptied by every commit to
   * tokens, users, projects and members: a check costs a map lookup until one of those changes.
   * A stream that may not is ended; so is one whose check fails for another reason (closed, not open).
   */
  async function stillAllowed(s: Subscriber): Promise<boolean> {
    try {
      accounts.assertActive(await accounts.authenticate(s.caller.token));
      s.membership = await access.membership(s.appId, s.caller.userId);
      return true;
    } catch (err) {
      if (!(err instanceof AppError)) ctx.logger.warn({ err, appId: s.appId }, 'live: access check failed; the stream is ended');
      s.sink.close(err instanceof AppError ? err.message : 'access could not be checked');
      return false;
    }
  }

  /** Every stream's access, checked again; those that lost it are ended. */
  async function checkAll(): Promise<void> {
    checkedAt = clock.now();
    const all = [...byApp.values()].flatMap((set) => [...set]);
    await Promise.all(all.map(stillAllowed));
  }

  /** The link an event is about: an anonymous view's, or a behaviour record's from its content (`linkId`); or null. */
  function linkOf(e: FeedEvent): string | null {
    if (e.domainType === 'LinkView') {
      const linkId = (e.body as { linkId?: unknown } | null)?.linkId;
      return typeof linkId === 'string' && linkId !== '' ? linkId : null;
    }
    if (e.domainType !== 'BehaviourLog') return null;
    const content = (e.body as { content?: unknown } | null)?.content;
    if (typeof content !== 'string' || !content.includes('linkId')) return null;
    try {
      const parsed = JSON.parse(content) as { linkId?: unknown };
      return typeof parsed.linkId === 'string' && parsed.linkId !== '' ? parsed.linkId : null;
    } catch {
      return null;
    }
  }

  function ownerOf(e: FeedEvent): string | null {
    const owner = (e.body as { svcUserId?: unknown } | null)?.svcUserId;
    return owner === null || owner === undefined ? null : String(owner);
  }

  /** Delivers a project's events to its subscribers, each after its own cursor and as it may see them. */
  async function deliver(appId: string, subscribers: Set<Subscriber>, events: FeedEvent[]): Promise<void> {
    if (events.length === 0) return;
    // Access is checked again before anything is sent: an event written after a member was removed
    // (or their token revoked) never reaches them, however recently the last check ran.
    await Promise.all([...subscribers].map(stillAllowed));
    let creators: Map<string, number> | null = null;
    if ([...subscribers].some((s) => !s.membership.isManager)) {
      const linkIds = [...new Set(events.map(linkOf).filter((id): id is string => id !== null))];
      creators = linkIds.length > 0 ? await histories.linkCreators(appId, linkIds) : new Map();
    }
    const messages = events.map((e) => ({
      event: e,
      message: {
        seq: e.seq,
        event: `${e.domainType}.${e.event_type}`,
        data: { ...toMessage(e), createdAt: clock.format(e.createdAt) },
      },
    }));
    for (const s of subscribers) {
      const user = String(s.membership.userId);
      const visible = messages.filter(({ event: e }) => {
        if (e.seq <= s.cursor) return false;
        if (s.membership.isManager) return true;
        if (ownerOf(e) === user) return true;
        const link = linkOf(e);
        return link !== null && String(creators?.get(link) ?? '') === user;
      });
      const last = events[events.length - 1];
      if (last !== undefined && last.seq > s.cursor) s.cursor = last.seq;
      if (visible.length > 0) s.sink.send(visible.map((v) => v.message));
    }
  }

  /** One poll: when the feed has moved, each project with streams reads what its slowest stream lacks. */
  async function poll(): Promise<void> {
    const top = await lastPosition(db);
    if (top <= seen) return;
    for (const [appId, subscribers] of byApp) {
      if (subscribers.size === 0) continue;
      const from = Math.min(...[...subscribers].map((s) => s.cursor));
      if (from >= top) continue;
      const events = await readFeed(db, clock, appId, from, READ_BATCH);
      await deliver(appId, subscribers, events);
      // A full batch means more is waiting: the next poll continues from the new cursors.
      if (events.length === READ_BATCH) return;
    }
    seen = top;
  }

  /** Where a stream starts: after `lastEventId` (a feed position this stream sent earlier), or now. */
  async function startCursor(appId: string, lastEventId: string | undefined): Promise<number> {
    if (lastEventId === undefined || lastEventId.trim() === '') return lastPosition(db);
    if (!/^\d{1,15}$/.test(lastEventId.trim()))
      throw badRequest("Invalid Last-Event-ID: a feed position this stream sent as an event's id");
    // Resuming from before the oldest event kept starts at the oldest one kept.
    return Math.max(Number(lastEventId.trim()), (await oldestPosition(db, appId)) - 1);
  }

  /** The poller's tick: every stream's access again when it is due, then the feed. */
  async function pollStreams(): Promise<void> {
    if (clock.now() - checkedAt >= ACCESS_CHECK_MS) await checkAll();
    await poll();
  }

  const poller = deps.defineJob(livePollJob({ active: () => !closed && byApp.size > 0, poll: pollStreams }, pollMs));

  return {
    /**
     * Opens a stream for a member of the project: from the event after `lastEventId` (a feed
     * position this stream sent earlier), or from now. Returns the function that closes it.
     * Past LIVE_MAX_STREAMS_PER_USER streams of the caller, or LIVE_MAX_STREAMS of this process,
     * refused with `rate_limited` (HTTP 429, Retry-After).
     */
    async open(appId: string, caller: LiveCaller, lastEventId: string | undefined, sink: LiveSink): Promise<() => void> {
      const mine = perUser.get(caller.userId) ?? 0;
      if (mine >= liveMaxStreamsPerUser)
        throw rateLimited(CAP_RETRY_AFTER_S, `At most ${liveMaxStreamsPerUser} open live streams per user; close one first`);
      if (open >= liveMaxStreams)
        throw rateLimited(CAP_RETRY_AFTER_S, 'This server has as many open live streams as it takes; try again later');
      open += 1;
      perUser.set(caller.userId, mine + 1);
      let subscriber: Subscriber;
      try {
        subscriber = {
          appId,
          caller,
          membership: await access.membership(appId, caller.userId),
          sink,
          cursor: await startCursor(appId, lastEventId),
        };
      } catch (err) {
        release(caller.userId);
        throw err;
      }
      let set = byApp.get(appId);
      if (!set) byApp.set(appId, (set = new Set()));
      set.add(subscriber);
      // Events after the cursor may already be in the feed (a resumed stream): the next poll sends them.
      seen = Math.min(seen, subscriber.cursor);
      poller.poke();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        release(caller.userId);
        const s = byApp.get(appId);
        if (!s) return;
        s.delete(subscriber);
        if (s.size === 0) byApp.delete(appId);
      };
    },

    /** Open streams in this process. */
    streams(): number {
      let n = 0;
      for (const s of byApp.values()) n += s.size;
      return n;
    },

    /** Stops reading the feed (the server is closing; the route ends the streams, the jobs' stop ends the poller). */
    close(): void {
      closed = true;
    },
  };
}

export type LiveService = ReturnType<typeof createLiveService>;
