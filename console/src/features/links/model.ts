/**
 * What the link pages compute from the API's records, pure: the dwell per page over a link's views
 * (for the chart), and a link's state as a person reads it.
 */
import { type PageDuration, pagesRead } from '../../shared/behaviour/model.ts';

/** The fields of a view log the dwell chart reads. */
export interface ViewLogLike {
  durations?: readonly PageDuration[] | null;
}

/** Seconds on each page, over every view given, in page order: the pages no view reached are left out. */
export interface DwellByPage {
  pages: number[];
  seconds: number[];
  /** The views that read at least one page. */
  views: number;
}

export function dwellByPage(logs: readonly ViewLogLike[]): DwellByPage {
  const total = new Map<number, number>();
  let views = 0;
  for (const log of logs) {
    const read = pagesRead(log.durations);
    if (read.length > 0) views += 1;
    for (const { page, ms } of read) total.set(page, (total.get(page) ?? 0) + ms);
  }
  const pages = [...total.keys()].sort((a, b) => a - b);
  // Tenths of a second: a glance at a page is not 0.
  return { pages, seconds: pages.map((p) => Math.round((total.get(p) ?? 0) / 100) / 10), views };
}

/** The link's state for its badge: disabled (status 0), expired (expiresAt past), else active. */
export type LinkState = 'active' | 'disabled' | 'expired';

export function linkState(
  link: { status: number; expiresAt: string | null },
  now: Date,
  parse: (t: string) => Date | undefined,
): LinkState {
  if (link.status === 0) return 'disabled';
  const at = link.expiresAt ? parse(link.expiresAt) : undefined;
  if (at && at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The link kinds of the API's `type`. */
export const LINK_TYPES = { 1: 'file', 2: 'web', 3: 'redirect', 4: 'room' } as const;
export type LinkKind = (typeof LINK_TYPES)[keyof typeof LINK_TYPES];

export function linkKind(type: number): LinkKind {
  return LINK_TYPES[type as 1 | 2 | 3 | 4] ?? 'file';
}
