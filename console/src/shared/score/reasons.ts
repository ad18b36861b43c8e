/**
 * A score's reasons (docs/scoring.md "Reasons") as a person reads them: which text says it and the
 * values it is filled with, in any language. The API's own `text` is English only; the console says
 * the same from the reason's fields. Pure: the hook translates, the components draw.
 */

export type ReasonKind = 'deck_read' | 'key_page' | 'site_key_page' | 'mail_click' | 'form' | 'return';

/** A reason as the API answers it (the fields read here). */
export interface ScoreReason {
  kind: ReasonKind;
  text: string;
  points: number;
  count: number;
  lastAt: string;
  firstAt: string;
  title?: string;
  pages?: number;
  pageCount?: number;
  keyPages?: number[];
  seconds?: number;
  url?: string;
  prefix?: string;
}

/** The texts under `customers.score.reasons`. */
export type ReasonKey =
  'deck_read' | 'deck_readAny' | 'key_page' | 'key_pageSeconds' | 'site_key_page' | 'mail_click' | 'form' | 'formSite' | 'return';

export interface ReasonWords {
  key: ReasonKey;
  /** The values of its text; `title` undefined: the text's "untitled" word stands in. */
  values: { title?: string; pages?: string | number; pageCount?: number; minutes?: number; seconds?: number; page?: string };
}

/** Which text says a reason, and with what. */
export function reasonWords(r: ScoreReason): ReasonWords {
  const title = r.title?.trim() || undefined;
  switch (r.kind) {
    case 'deck_read':
      return r.pages !== undefined && r.pageCount !== undefined
        ? { key: 'deck_read', values: { title, pages: r.pages, pageCount: r.pageCount } }
        : { key: 'deck_readAny', values: { title } };
    case 'key_page': {
      const seconds = Math.max(0, Math.round(r.seconds ?? 0));
      const pages = (r.keyPages ?? []).join(', ');
      return seconds >= 60
        ? { key: 'key_page', values: { title, pages, minutes: Math.round(seconds / 60) } }
        : { key: 'key_pageSeconds', values: { title, pages, seconds } };
    }
    case 'site_key_page':
      // The page's title, else the key prefix it is under, else its address.
      return { key: 'site_key_page', values: { page: title ?? r.prefix ?? r.url ?? '' } };
    case 'form':
      return title ? { key: 'form', values: { title } } : { key: 'formSite', values: {} };
    case 'mail_click':
      return { key: 'mail_click', values: {} };
    default:
      return { key: 'return', values: {} };
  }
}

/** A score as shown: one decimal, none when it is a whole number ("23.5", "40"). */
export function scoreText(score: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(score);
}
