import type { AppContext } from '../../context.ts';
import { type FeedEvent, lastPosition, oldestPosition, readFeed, toMessage } from '../../events/sequencer.ts';
import { badRequest } from '../../http/errors.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { HistoriesService } from '../histories/service.ts';

/** Events read per project per poll at most; a longer backlog is read over the next polls. */
const READ_BATCH = 500;

/** One message of the stream: the feed's event message, its feed position as the SSE id. */
export interface LiveMessage {
  seq: number;
  event: string;
  data: ReturnType<typeof toMessage> & { createdAt: string };
}

/** What the route gives the service for one open stream. */
export interface LiveSink {
  /** Sends messages in feed order; returns false when the connection can take no more now. */
  send(messages: LiveMessage[]): void;
}

interface Subscriber {
  readonly membership: Membership;
  readonly sink: LiveSink;
  cursor: number;
}

/**
 * Live events (docs/live.md): the project's events as they reach the feed, streamed to its members.
 * One poller per process reads the feed (the outbox in commit order, sequenced by the relay) for
 * the projects that have open streams, so a stream sees every server's and every worker's events.
 * A manager sees every event; a Sales member sees those about their own customers (the body's
 * `svcUserId`) and about their own links (a behaviour record whose content names a link they created).
 */
export function createLiveService(ctx: AppContext, access: AccessService, histories: HistoriesService) {
  const db = ctx.database.db;
  const clock = ctx.clock;
  const pollMs = ctx.config.livePollMs;
  const byApp = new Map<string, Set<Subscriber>>();
  let timer: NodeJS.Timeout | null = null;
  let polling = false;
  let seen = 0;
  let closed = false;

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

  function schedule(): void {
    if (timer !== null || closed || byApp.size === 0) return;
    timer = setTimeout(() => {
      timer = null;
      if (polling) return schedule();
      polling = true;
      poll()
        .catch((err: unknown) => ctx.logger.warn({ err }, 'live: feed poll failed; retrying'))
        .finally(() => {
          polling = false;
          schedule();
        });
    }, pollMs);
    timer.unref();
  }

  return {
    /**
     * Opens a stream for a member of the project: from the event after `lastEventId` (a feed
     * position this stream sent earlier), or from now. Returns the function that closes it.
     */
    async open(appId: string, callerId: number, lastEventId: string | undefined, sink: LiveSink): Promise<() => void> {
      const membership = await access.membership(appId, callerId);
      let cursor: number;
      if (lastEventId === undefined || lastEventId.trim() === '') {
        cursor = await lastPosition(db);
      } else if (/^\d{1,15}$/.test(lastEventId.trim())) {
        // Resuming from before the oldest event kept starts at the oldest one kept.
        cursor = Math.max(Number(lastEventId.trim()), (await oldestPosition(db, appId)) - 1);
      } else {
        throw badRequest("Invalid Last-Event-ID: a feed position this stream sent as an event's id");
      }
      const subscriber: Subscriber = { membership, sink, cursor };
      let set = byApp.get(appId);
      if (!set) byApp.set(appId, (set = new Set()));
      set.add(subscriber);
      // Events after the cursor may already be in the feed (a resumed stream): the next poll sends them.
      seen = Math.min(seen, cursor);
      schedule();
      return () => {
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

    /** Stops polling (the server is closing; the route ends the streams). */
    close(): void {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

export type LiveService = ReturnType<typeof createLiveService>;
