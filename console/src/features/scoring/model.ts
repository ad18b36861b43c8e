/**
 * The project's scoring rules as the console shows and edits them (docs/scoring.md, "Settings"),
 * pure: the documented defaults and limits, the form's values to and from the API's, page numbers
 * typed as text, and which form field a `scoring_invalid` answer names.
 */

export const WEIGHT_KEYS = ['deck_read', 'key_page_second', 'site_key_page', 'mail_click', 'form', 'return'] as const;
export type WeightKey = (typeof WEIGHT_KEYS)[number];

/** The rules as the API answers them (GET and PUT …/scoring), the fields the card reads. */
export interface Rules {
  halfLifeDays: number;
  deckShare: number;
  returnDays: number;
  weights: Record<WeightKey, number>;
  keyPages: { fileId: string; pages: number[] }[];
  siteKeyPages: string[];
  hotScore: number;
  keyPageCapSeconds: number;
}

/** The server's defaults (docs/scoring.md; a unit test holds them to src/modules/scoring/rules.ts). */
export const DEFAULT_RULES: Omit<Rules, 'keyPageCapSeconds'> = {
  halfLifeDays: 14,
  deckShare: 0.5,
  returnDays: 7,
  weights: { deck_read: 10, key_page_second: 0.1, site_key_page: 5, mail_click: 3, form: 15, return: 5 },
  keyPages: [],
  siteKeyPages: [],
  hotScore: 25,
};

/** What the server takes (docs/scoring.md): ranges of the numbers, sizes of the lists. */
export const LIMITS = {
  halfLifeDays: [1, 365],
  deckShare: [0.05, 1],
  returnDays: [1, 90],
  hotScore: [0, 100_000],
  weight: [0, 1000],
  keyPageFiles: 100,
  keyPagesPerFile: 200,
  pageNumber: 10_000,
  siteKeyPages: 50,
  prefixLength: 512,
} as const;

/** The form's values: the deck share as a percentage, a file's key pages as the text typed ("3, 4, 7-9"). */
export interface RulesForm {
  halfLifeDays: number | null;
  deckPercent: number | null;
  returnDays: number | null;
  hotScore: number | null;
  weights: Record<WeightKey, number | null>;
  keyPages: { fileId?: string; pages?: string }[];
  siteKeyPages: string[];
}

/** A share (0.5) as a percentage (50), without the float's noise. */
export const percentOf = (share: number): number => Math.round(share * 10_000) / 100;

/** Page numbers as a person writes them: runs of three or more as ranges ("1-3, 7"). */
export function pagesText(pages: readonly number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j += 1;
    const [from, to] = [sorted[i] as number, sorted[j] as number];
    if (j - i >= 2) parts.push(`${from}-${to}`);
    else for (let k = i; k <= j; k += 1) parts.push(String(sorted[k]));
    i = j + 1;
  }
  return parts.join(', ');
}

/** The longest range typed that is expanded (a typo like "1-100000" is refused, not made into a huge list). */
const MAX_RANGE = LIMITS.keyPagesPerFile;

/**
 * Page numbers typed ("3, 4 7-9", commas, spaces or the Chinese comma between): the numbers in order,
 * or null when the text is not page numbers (empty, a word, a range backwards or longer than a file's
 * key pages may be).
 */
export function parsePages(text: string): number[] | null {
  const parts = text
    .split(/[\s,，、;；]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return null;
  const pages = new Set<number>();
  for (const part of parts) {
    const m = /^(\d{1,6})(?:\s*[-–~～]\s*(\d{1,6}))?$/.exec(part);
    if (!m) return null;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from >= MAX_RANGE) return null;
    for (let p = from; p <= to; p += 1) pages.add(p);
  }
  return [...pages].sort((a, b) => a - b);
}

/** The form's values for rules (numbers and lists as the API holds them). */
export function formOf(rules: Omit<Rules, 'keyPageCapSeconds'>): RulesForm {
  return {
    halfLifeDays: rules.halfLifeDays,
    deckPercent: percentOf(rules.deckShare),
    returnDays: rules.returnDays,
    hotScore: rules.hotScore,
    weights: { ...rules.weights },
    keyPages: rules.keyPages.map((k) => ({ fileId: k.fileId, pages: pagesText(k.pages) })),
    siteKeyPages: [...rules.siteKeyPages],
  };
}

/**
 * What the PUT sends: every setting (one left empty is left out: it keeps its value), the lists in the
 * form's order (so that an error's index names the row).
 */
export function inputOf(form: RulesForm) {
  const given = (n: number | null | undefined) => (n === null || n === undefined ? undefined : n);
  const weights = Object.fromEntries(WEIGHT_KEYS.flatMap((k) => (given(form.weights[k]) === undefined ? [] : [[k, form.weights[k]]])));
  return {
    halfLifeDays: given(form.halfLifeDays),
    deckShare: form.deckPercent === null ? undefined : Math.round(form.deckPercent * 100) / 10_000,
    returnDays: given(form.returnDays),
    hotScore: given(form.hotScore),
    weights,
    keyPages: form.keyPages.map((k) => ({ fileId: k.fileId ?? '', pages: parsePages(k.pages ?? '') ?? [] })),
    siteKeyPages: form.siteKeyPages.map((p) => p.trim()),
  };
}

/** A form field's name path (antd's NamePath). */
export type FieldPath = (string | number)[];

const SETTING_FIELDS: Record<string, FieldPath> = {
  half_life_days: ['halfLifeDays'],
  deck_share: ['deckPercent'],
  return_days: ['returnDays'],
  hot_score: ['hotScore'],
};

/**
 * The form field a `scoring_invalid` answer names, from its detail ("weights.form must be from 0 to
 * 1000", "key_pages[1].pages must be …", "site_key_pages[0] matches every page", "key_pages names
 * file f-1 twice"), or undefined when it names none (the card then shows it above the form).
 */
export function fieldOfDetail(detail: string, form: Pick<RulesForm, 'keyPages'>): FieldPath | undefined {
  const setting = /^(half_life_days|deck_share|return_days|hot_score)\b/.exec(detail);
  if (setting) return SETTING_FIELDS[setting[1] as string];
  const weight = /^weights\.(\w+)/.exec(detail);
  if (weight && (WEIGHT_KEYS as readonly string[]).includes(weight[1] as string)) return ['weights', weight[1] as string];
  const keyPage = /^key_pages\[(\d+)\]\.(fileId|pages)/.exec(detail);
  if (keyPage) return ['keyPages', Number(keyPage[1]), keyPage[2] as string];
  const twice = /^key_pages names file (.+) twice$/.exec(detail);
  if (twice) {
    const last = form.keyPages.map((k) => k.fileId).lastIndexOf(twice[1]);
    return last >= 0 ? ['keyPages', last, 'fileId'] : undefined;
  }
  const site = /^site_key_pages\[(\d+)\]/.exec(detail);
  if (site) return ['siteKeyPages', Number(site[1])];
  return undefined;
}
