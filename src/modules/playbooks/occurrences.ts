import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { FeedEvent } from '../../events/sequencer.ts';
import type { Clock } from '../../lib/time.ts';
import type { PlaybooksDeps } from './common.ts';
import type { DeckFacts, Occurrence } from './matching.ts';

/**
 * What the feed's events say a customer did (docs/playbooks.md "How a playbook is evaluated"):
 * behaviour records, with their view's reading as stored (pages read per file, of the file's pages)
 * and a URL; and, when a playbook waits for a score, the customers' scores now.
 */

type Body = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function contentOf(body: Body): Body {
  if (typeof body.content !== 'string') return body.content !== null && typeof body.content === 'object' ? (body.content as Body) : {};
  try {
    const parsed = JSON.parse(body.content) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Body) : {};
  } catch {
    return {};
  }
}

/** A record's own part of an occurrence (its view's reading is added afterwards). */
export function recordOccurrence(
  appId: string,
  r: { id: string; customerId: string; action: string; at: number; recordedAt: number; content: Body },
): Occurrence & { viewId: string | null } {
  const c = r.content;
  const url = str(c.url) ?? str(c.href) ?? undefined;
  const linkId = str(c.linkId) ?? undefined;
  return {
    appId,
    eventId: r.id,
    customerId: r.customerId,
    at: r.at,
    recordedAt: r.recordedAt,
    action: r.action,
    ...(url === undefined ? {} : { url }),
    ...(linkId === undefined ? {} : { linkId }),
    viewId: str(c.linkViewLogId),
  };
}

/** The behaviour records among the feed's events, as occurrences of their project (no reading yet). */
export function feedOccurrences(events: (FeedEvent & { appId: string })[], clock: Clock): (Occurrence & { viewId: string | null })[] {
  const out: (Occurrence & { viewId: string | null })[] = [];
  for (const e of events) {
    if (e.domainType !== 'BehaviourLog' || e.event_type !== 'create' || e.body === null || typeof e.body !== 'object') continue;
    const body = e.body as Body;
    const customerId = str(body.customerId);
    const action = str(body.action);
    if (customerId === null || action === null) continue;
    const at = (typeof body.when === 'string' ? clock.parse(body.when) : null) ?? e.createdAt;
    out.push(recordOccurrence(e.appId, { id: e.id, customerId, action, at, recordedAt: e.createdAt, content: contentOf(body) }));
  }
  return out;
}

/** Adds each occurrence's view reading (pages per file, page counts), one read per project. */
export async function addReadings(
  deps: Pick<PlaybooksDeps, 'readings' | 'files'>,
  db: Kysely<Database>,
  appId: string,
  list: (Occurrence & { viewId: string | null })[],
): Promise<void> {
  const viewIds = [...new Set(list.map((o) => o.viewId).filter((v): v is string => v !== null))];
  if (viewIds.length === 0) return;
  const views = await deps.readings.viewPages(db, appId, viewIds);
  const fileIds = [...new Set([...views.values()].flatMap((v) => [...v.files.keys()]))];
  const facts = fileIds.length === 0 ? new Map<string, { pageCount: number }>() : await deps.files.of(db, appId, fileIds);
  const decks = new Map<string, DeckFacts>();
  for (const [viewId, v] of views) {
    decks.set(viewId, {
      viewId,
      linkId: v.linkId,
      files: [...v.files].map(([fileId, f]) => {
        const pages = [...f.pages.keys()].sort((a, b) => a - b);
        const ms = [...f.pages.values()].reduce((a, b) => a + b, 0);
        return { fileId, pages, pageCount: Math.max(facts.get(fileId)?.pageCount ?? 0, pages.length), ms };
      }),
    });
  }
  for (const o of list) {
    const deck = o.viewId === null ? undefined : decks.get(o.viewId);
    if (deck === undefined) continue;
    o.deck = deck;
    if (o.linkId === undefined && deck.linkId !== null) o.linkId = deck.linkId;
  }
}
