/*
 * A customer's score state (docs/scoring.md): its value at a reference time, its last rise, its reasons,
 * its last signal and the marks the rules keep between records. points.ts applies records to it.
 */

export type ReasonKind = 'deck_read' | 'key_page' | 'site_key_page' | 'mail_click' | 'form' | 'return';

/** What a contribution names, for its text and the console. */
export interface ReasonDetail {
  title?: string;
  fileId?: string;
  linkId?: string;
  /** deck_read: the most pages read in one reading, of `of`. */
  pages?: number;
  of?: number;
  /** key_page: the key pages read, and the time on them (ms, capped per page and reading). */
  keyPages?: number[];
  ms?: number;
  url?: string;
  prefix?: string;
}

/** One contribution to a score: points `v` at `at`, earned `n` times since `first`. */
export interface Reason {
  key: string;
  kind: ReasonKind;
  v: number;
  at: number;
  first: number;
  n: number;
  /** The occurrence last counted (a site visit), so that it is counted once. */
  ref?: string;
  d: ReasonDetail;
}

/** The latest signal that earned points. */
export interface LastSignal {
  kind: ReasonKind;
  action: string;
  at: number;
  points: number;
  title?: string;
  linkId?: string;
  fileId?: string;
  url?: string;
}

/** What a reading (a view of a shared link) has earned so far: the files read to the share, the key time per file. */
export interface ReadingMark {
  v: string;
  at: number;
  decks: string[];
  keyMs: Record<string, number>;
}

export interface Marks {
  /** The latest view of a shared link (link_view_log), for returns. */
  lastViewAt: number;
  readings: ReadingMark[];
  /** When the customer was last announced as a hot lead (docs/scoring.md, "Hot leads announced"). */
  hotAt?: number;
}

export interface ScoreState {
  value: number;
  refAt: number;
  rise: number;
  riseAt: number;
  reasons: Reason[];
  last: LastSignal | null;
  marks: Marks;
}

export const emptyState = (): ScoreState => ({
  value: 0,
  refAt: 0,
  rise: 0,
  riseAt: 0,
  reasons: [],
  last: null,
  marks: { lastViewAt: 0, readings: [] },
});
