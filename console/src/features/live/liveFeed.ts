import { useSyncExternalStore } from 'react';
import { countsForBell } from './alerts.ts';

/** One event of the live stream as the feed shows it. */
export interface FeedEntry {
  /** The stream's id (its feed position). */
  id: string;
  appId: string;
  customerId: string | undefined;
  customerName: string;
  /** The key under live.* and its values. */
  textKey: 'activity' | 'customerCreated' | 'customerChanged' | 'anonymousOpen';
  action: string | undefined;
  content: string | null;
  linkName: string | undefined;
  /** Where an anonymous visitor is (their location), or empty. */
  place?: string | undefined;
  at: string;
}

const MAX = 50;
let entries: FeedEntry[] = [];
let unseen = 0;
const listeners = new Set<() => void>();
let snapshot = { entries, unseen };

function emit(): void {
  snapshot = { entries, unseen };
  for (const l of listeners) l();
}

/** The tab's feed: the latest events, newest first, and how many worth a look arrived since it was last opened. */
export const liveFeed = {
  add(entry: FeedEntry): void {
    if (entries.some((e) => e.id === entry.id && e.appId === entry.appId)) return;
    entries = [entry, ...entries].slice(0, MAX);
    if (countsForBell(entry)) unseen += 1;
    emit();
  },
  /** What the feed holds now (the hook's value). */
  snapshot(): { entries: FeedEntry[]; unseen: number } {
    return snapshot;
  },
  seen(): void {
    unseen = 0;
    emit();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useLiveFeed(): { entries: FeedEntry[]; unseen: number } {
  return useSyncExternalStore(liveFeed.subscribe, () => snapshot);
}
