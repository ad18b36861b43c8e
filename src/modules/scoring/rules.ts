/*
 * A project's scoring rules (docs/scoring.md): the points of each behaviour, the half-life, the
 * share of a deck that makes a reading, the return window, key pages of files and of the site. Pure:
 * the defaults, the stored form read back, and a PUT's input checked and merged.
 */
import { failure } from '../../http/errors.ts';

/** The behaviours that earn points, by the name their weight has in the rules. */
export const WEIGHT_KEYS = ['deck_read', 'key_page_second', 'site_key_page', 'mail_click', 'form', 'return'] as const;
export type WeightKey = (typeof WEIGHT_KEYS)[number];

export interface KeyPages {
  fileId: string;
  pages: number[];
}

export interface ScoringRules {
  /** Days after which a point counts half. */
  halfLifeDays: number;
  /** The share of a file's pages a reading must reach to count as the deck read. */
  deckShare: number;
  /** A new view of a shared link more than an hour and at most this many days after the previous one is a return. */
  returnDays: number;
  weights: Record<WeightKey, number>;
  /** Pages of files the project marks as key (by file id and page number). */
  keyPages: KeyPages[];
  /** URL prefixes of the project's site whose pages are key. */
  siteKeyPages: string[];
  /** A rise that brings a customer's score to at least this announces it as a hot lead (0: never). */
  hotScore: number;
}

export const DEFAULT_RULES: ScoringRules = {
  halfLifeDays: 14,
  deckShare: 0.5,
  returnDays: 7,
  weights: { deck_read: 10, key_page_second: 0.1, site_key_page: 5, mail_click: 3, form: 15, return: 5 },
  keyPages: [],
  siteKeyPages: [],
  hotScore: 25,
};

/** Seconds on one key page that count in one reading, at most. */
export const KEY_PAGE_CAP_SECONDS = 300;

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
  fileIdLength: 64,
} as const;

const invalid = (detail: string) => failure('scoring_invalid', detail);

/** The stored rules (JSON text) with what they leave out at its default. */
export function storedRules(text: string | null | undefined): ScoringRules {
  let set: Partial<ScoringRules> = {};
  try {
    if (text) set = JSON.parse(text) as Partial<ScoringRules>;
  } catch {
    // Unreadable text stands for the defaults (the migration writes '{}').
  }
  return {
    halfLifeDays: set.halfLifeDays ?? DEFAULT_RULES.halfLifeDays,
    deckShare: set.deckShare ?? DEFAULT_RULES.deckShare,
    returnDays: set.returnDays ?? DEFAULT_RULES.returnDays,
    weights: { ...DEFAULT_RULES.weights, ...(set.weights ?? {}) },
    keyPages: set.keyPages ?? [],
    siteKeyPages: set.siteKeyPages ?? [],
    hotScore: set.hotScore ?? DEFAULT_RULES.hotScore,
  };
}

/** A number of a JSON body, or its text in a form field (read strictly: digits, an optional fraction). */
function numberOf(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,9}(\.\d{1,9})?$/.test(value.trim())) return Number(value.trim());
  throw invalid(`${name} must be a number`);
}

function inRange(value: unknown, name: string, [min, max]: readonly [number, number], integer = false): number {
  const n = numberOf(value, name);
  if (integer && !Number.isInteger(n)) throw invalid(`${name} must be a whole number`);
  if (n < min || n > max) throw invalid(`${name} must be from ${min} to ${max}`);
  return n;
}

/** A JSON value of a JSON body, or its text in a form field. */
function structured(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw invalid(`${name} must be JSON`);
  }
}

function weightsOf(value: unknown, current: Record<WeightKey, number>): Record<WeightKey, number> {
  const given = structured(value, 'weights');
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw invalid('weights must be an object of points by behaviour');
  const out = { ...current };
  for (const [key, points] of Object.entries(given)) {
    if (!(WEIGHT_KEYS as readonly string[]).includes(key))
      throw invalid(`weights.${key.slice(0, 64)} is not a behaviour: ${WEIGHT_KEYS.join(', ')}`);
    if (points === null) continue;
    out[key as WeightKey] = inRange(points, `weights.${key}`, LIMITS.weight);
  }
  return out;
}

function keyPagesOf(value: unknown): KeyPages[] {
  const given = structured(value, 'key_pages');
  if (!Array.isArray(given)) throw invalid('key_pages must be an array of {fileId, pages}');
  if (given.length > LIMITS.keyPageFiles) throw invalid(`key_pages names ${LIMITS.keyPageFiles} files at most`);
  const seen = new Set<string>();
  return given.map((entry: unknown, i) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const fileId = e.fileId ?? e.file_id;
    if (typeof fileId !== 'string' || fileId === '' || fileId.length > LIMITS.fileIdLength)
      throw invalid(`key_pages[${i}].fileId must be a file id`);
    if (seen.has(fileId)) throw invalid(`key_pages names file ${fileId} twice`);
    seen.add(fileId);
    if (!Array.isArray(e.pages) || e.pages.length === 0 || e.pages.length > LIMITS.keyPagesPerFile)
      throw invalid(`key_pages[${i}].pages must be 1 to ${LIMITS.keyPagesPerFile} page numbers`);
    const pages = [...new Set(e.pages.map((p: unknown) => inRange(p, `key_pages[${i}].pages`, [1, LIMITS.pageNumber], true)))];
    return { fileId, pages: pages.sort((a, b) => a - b) };
  });
}

function siteKeyPagesOf(value: unknown): string[] {
  const given = structured(value, 'site_key_pages');
  if (!Array.isArray(given)) throw invalid('site_key_pages must be an array of URL prefixes');
  if (given.length > LIMITS.siteKeyPages) throw invalid(`site_key_pages holds ${LIMITS.siteKeyPages} prefixes at most`);
  const out: string[] = [];
  for (const [i, p] of given.entries()) {
    if (typeof p !== 'string' || p.trim() === '' || p.length > LIMITS.prefixLength)
      throw invalid(`site_key_pages[${i}] must be a URL prefix of 1 to ${LIMITS.prefixLength} characters`);
    const prefix = normalisedUrl(p.trim());
    if (prefix === '' || prefix === '/') throw invalid(`site_key_pages[${i}] matches every page: name a page`);
    if (!out.includes(prefix)) out.push(prefix);
  }
  return out;
}

/** A PUT's input: each setting by its snake_case or camelCase name, a JSON null as absent. */
export type RulesInput = Record<string, unknown>;

const pick = (input: RulesInput, snake: string, camel: string): unknown => input[snake] ?? input[camel] ?? undefined;

/**
 * The rules a PUT makes of the current ones: every setting given is checked and replaces the
 * current one (weights one by one; key pages and site key pages as a whole). `scoring_invalid` names
 * the first setting that is wrong; none given is a Bad Request.
 */
export function mergeRules(current: ScoringRules, input: RulesInput): ScoringRules {
  const halfLife = pick(input, 'half_life_days', 'halfLifeDays');
  const share = pick(input, 'deck_share', 'deckShare');
  const returnDays = pick(input, 'return_days', 'returnDays');
  const weights = pick(input, 'weights', 'weights');
  const keyPages = pick(input, 'key_pages', 'keyPages');
  const sitePages = pick(input, 'site_key_pages', 'siteKeyPages');
  const hotScore = pick(input, 'hot_score', 'hotScore');
  if ([halfLife, share, returnDays, weights, keyPages, sitePages, hotScore].every((v) => v === undefined)) {
    throw failure(
      'Bad Request',
      'Give at least one of half_life_days, deck_share, return_days, weights, key_pages, site_key_pages, hot_score',
    );
  }
  return {
    halfLifeDays: halfLife === undefined ? current.halfLifeDays : inRange(halfLife, 'half_life_days', LIMITS.halfLifeDays, true),
    deckShare: share === undefined ? current.deckShare : inRange(share, 'deck_share', LIMITS.deckShare),
    returnDays: returnDays === undefined ? current.returnDays : inRange(returnDays, 'return_days', LIMITS.returnDays, true),
    weights: weights === undefined ? current.weights : weightsOf(weights, current.weights),
    keyPages: keyPages === undefined ? current.keyPages : keyPagesOf(keyPages),
    siteKeyPages: sitePages === undefined ? current.siteKeyPages : siteKeyPagesOf(sitePages),
    hotScore: hotScore === undefined ? current.hotScore : inRange(hotScore, 'hot_score', LIMITS.hotScore),
  };
}

/**
 * A URL or prefix as site key pages are compared: without its scheme and a leading `www.`, in lower
 * case (`https://www.Example.com/Pricing` → `example.com/pricing`; a prefix starting with `/` is a path).
 */
export function normalisedUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^www\./, '');
}

/** The longest site key page prefix a page's URL starts with (a `/…` prefix against its path), or null. */
export function siteKeyPageOf(rules: ScoringRules, url: string): string | null {
  if (rules.siteKeyPages.length === 0 || url === '') return null;
  const full = normalisedUrl(url);
  const slash = full.indexOf('/');
  const path = slash < 0 ? '/' : full.slice(slash);
  let best: string | null = null;
  for (const prefix of rules.siteKeyPages) {
    const target = prefix.startsWith('/') ? path : full;
    if (target.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
  }
  return best;
}
