import type { AlertLocale, AlertWords } from '../../events/alert-events.ts';

/**
 * What an alert says (docs/alerts.md "Signals"), in English and Chinese: a headline and a sentence,
 * plain text (each channel escapes it for its own markup). Pure.
 */

/**
 * Whom the words speak to: the member told (`member`: "mentioned you") or the project's channels and
 * events (`team`: "mentioned Li Lei"). Only a mention's words differ.
 */
export type Audience = 'member' | 'team';

/** A day as a hot lead's reason names it (from the announcement): `day` is `yyyy-MM-dd`. */
export interface ReasonDay {
  kind: 'today' | 'yesterday' | 'weekday' | 'date';
  day: string;
}

/** A hot lead's reason in its structured form (the scoring module's), which any language words. */
export interface ReasonFacts {
  kind: string;
  count: number;
  when: ReasonDay;
  title?: string;
  pages?: number;
  pageCount?: number;
  keyPages?: number[];
  seconds?: number;
  prefix?: string;
  url?: string;
  /** A form: the shared link's it was filled in on (none: the site's). */
  linkId?: string;
}

/** A hot lead: its score, its reasons in English words and, when the announcement gave them, in their structured form. */
export interface HotFacts {
  score: number | null;
  reasons: string[];
  details?: ReasonFacts[];
}

const DAY_KINDS: ReadonlySet<string> = new Set(['today', 'yesterday', 'weekday', 'date']);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const txt = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, 512) : undefined);

/** Structured reasons as an event or a draft's data holds them (anything else: none), at most `max`. */
export function reasonFactsOf(v: unknown, max: number): ReasonFacts[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ReasonFacts[] = [];
  for (const item of v.slice(0, max)) {
    if (item === null || typeof item !== 'object') return undefined;
    const r = item as Record<string, unknown>;
    const when = (r.when ?? {}) as Record<string, unknown>;
    const kind = txt(r.kind);
    const day = txt(when.day);
    if (kind === undefined || typeof when.kind !== 'string' || !DAY_KINDS.has(when.kind) || day === undefined) return undefined;
    const facts: ReasonFacts = { kind, count: num(r.count) ?? 1, when: { kind: when.kind as ReasonDay['kind'], day } };
    for (const k of ['title', 'prefix', 'url', 'linkId'] as const) if (txt(r[k]) !== undefined) facts[k] = txt(r[k]);
    for (const k of ['pages', 'pageCount', 'seconds'] as const) if (num(r[k]) !== undefined) facts[k] = num(r[k]);
    if (Array.isArray(r.keyPages)) facts.keyPages = r.keyPages.filter((p): p is number => num(p) !== undefined).slice(0, 50);
    out.push(facts);
  }
  return out;
}

/** What the words are made from: who, what, how much. Names as stored (null: unknown). */
export type Facts =
  | { signal: 'deck_opened'; customer: string | null; link: string | null }
  | {
      signal: 'deck_read';
      customer: string | null;
      link: string | null;
      pagesRead: number;
      pageCount: number;
      seconds: number;
      /** The customer became a hot lead during the reading: told here, not apart. */
      hot?: HotFacts;
    }
  | { signal: 'revisit'; customer: string | null; link: string | null; days: number }
  /** `email`: the address the new reader gave; null: a likely forward (a new device on a new network). */
  | { signal: 'forward'; customer: string | null; link: string | null; email: string | null }
  | { signal: 'task_due'; customer: string | null; title: string; dueAt: string }
  | { signal: 'mention'; customer: string | null; author: string | null; mentioned: string | null; excerpt: string }
  | ({ signal: 'hot_lead'; customer: string | null } & HotFacts)
  | { signal: 'playbook'; customer: string | null; playbook: string; what: string; whatZh: string };

const NAME_MAX = 100;
export const EXCERPT_MAX = 140;

/** At most `max` characters (code points), an ellipsis marking a cut. */
export function cut(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

/** A note's Markdown as a short plain excerpt: mentions as `@label`, links as their text, no markup signs. */
export function excerptOf(markdown: string): string {
  const plain = markdown
    .replace(/@\[([^\]\n]{1,100})\]\(member:\d{1,10}\)/g, '@$1')
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/[*_`>#~]+/g, '');
  return cut(plain, EXCERPT_MAX);
}

/** Reading time in words: seconds under a minute, whole minutes after. */
function duration(seconds: number, locale: AlertLocale): string {
  if (seconds < 60) return locale === 'zh-CN' ? `${Math.max(0, Math.round(seconds))} 秒` : `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return locale === 'zh-CN' ? `${minutes} 分钟` : `${minutes} min`;
}

/** A hot lead's score and reasons: "Score 32: read 3 of 3 pages of 'Pricing' today; came back today" ('' for neither). */
function hotWhy(hot: HotFacts, why: string[], marks: { between: string; after: string; word: string }): string {
  const score = hot.score === null ? '' : `${marks.word} ${hot.score}`;
  return [score, why.map((r) => cut(r, 200)).join(marks.between)].filter(Boolean).join(marks.after);
}

const EN = { between: '; ', after: ': ', word: 'Score' };
const ZH = { between: '；', after: '：', word: '评分' };

/** What a reason says happened, in Chinese (as the console's customer page says it). */
function chineseWhat(r: ReasonFacts): string {
  const title = r.title === undefined ? '一个文件' : cut(r.title, NAME_MAX);
  switch (r.kind) {
    case 'deck_read':
      return r.pages !== undefined && r.pageCount !== undefined
        ? `阅读了《${title}》${r.pageCount} 页中的 ${r.pages} 页`
        : `阅读了《${title}》`;
    case 'key_page': {
      const seconds = Math.max(0, Math.round(r.seconds ?? 0));
      const spent = seconds >= 60 ? `${Math.round(seconds / 60)} 分钟` : `${seconds} 秒`;
      return `在《${title}》的重点页 ${(r.keyPages ?? []).join(', ')} 上停留 ${spent}`;
    }
    case 'site_key_page':
      return `访问了网站重点页「${cut(r.title ?? r.prefix ?? r.url ?? '', NAME_MAX)}」`;
    case 'form':
      return r.linkId === undefined ? '在网站上填写了表单' : `填写了《${r.title === undefined ? '一个分享链接' : title}》的表单`;
    case 'mail_click':
      return '点击了群发邮件中的链接';
    default:
      return '再次回来阅读';
  }
}

/** A reason in Chinese: "昨天阅读了《Pricing》3 页中的 3 页", "自周一起再次回来阅读 3 次". */
function chineseReason(r: ReasonFacts): string {
  const day =
    r.when.kind === 'today'
      ? '今天'
      : r.when.kind === 'yesterday'
        ? '昨天'
        : r.when.kind === 'weekday'
          ? `周${'日一二三四五六'[new Date(Date.parse(r.when.day)).getUTCDay()] ?? ''}`
          : `${r.when.day} `;
  const what = chineseWhat(r);
  if (r.count <= 1) return `${day}${what}`;
  return r.when.kind === 'today' ? `今天${what} ${r.count} 次` : `自${day.trim()}起${what} ${r.count} 次`;
}

/** A hot lead's reasons in Chinese: from their structured form, else (an announcement without it) as given. */
const chineseWhy = (hot: HotFacts): string[] => (hot.details === undefined ? hot.reasons : hot.details.map(chineseReason));

function english(f: Facts, audience: Audience): AlertWords {
  const who = cut(f.customer ?? 'A customer', NAME_MAX);
  switch (f.signal) {
    case 'deck_opened': {
      const link = cut(f.link ?? 'your link', NAME_MAX);
      return { title: `${who} opened '${link}'`, text: `${who} is reading '${link}' now.` };
    }
    case 'deck_read': {
      const link = cut(f.link ?? 'your link', NAME_MAX);
      const percent = f.pageCount > 0 ? Math.round((100 * f.pagesRead) / f.pageCount) : 0;
      const read = `${percent}% of '${link}' read, in ${duration(f.seconds, 'en-US')}.`;
      return {
        title: `${who} read ${f.pagesRead} of ${f.pageCount} pages of '${link}' (${duration(f.seconds, 'en-US')})`,
        text: f.hot === undefined ? read : `${read} Now a hot lead: ${hotWhy(f.hot, f.hot.reasons, EN) || 'engagement rising'}.`,
      };
    }
    case 'revisit': {
      const link = cut(f.link ?? 'your link', NAME_MAX);
      return { title: `${who} is back on '${link}'`, text: `First view in ${f.days} ${f.days === 1 ? 'day' : 'days'}.` };
    }
    case 'forward': {
      const link = cut(f.link ?? 'your link', NAME_MAX);
      return f.email === null
        ? {
            title: `'${link}' was likely forwarded`,
            text: `A new reader opened the link sent to ${who}, on another device and another network.`,
          }
        : { title: `'${link}' was forwarded`, text: `A new reader opened the link sent to ${who} (${cut(f.email, 254)}).` };
    }
    case 'task_due':
      return { title: `Task due: ${cut(f.title, 200)}`, text: `About ${who}, due ${f.dueAt}.` };
    case 'mention':
      return {
        title: `${cut(f.author ?? 'A colleague', NAME_MAX)} mentioned ${audience === 'member' ? 'you' : cut(f.mentioned ?? 'a colleague', NAME_MAX)}`,
        text: `In a note on ${who}: “${f.excerpt}”`,
      };
    case 'hot_lead':
      return { title: `${who} is a hot lead`, text: hotWhy(f, f.reasons, EN) || `${who}'s engagement is rising.` };
    case 'playbook':
      return {
        title: `${cut(f.playbook, NAME_MAX)}: ${who}`,
        text: `${who} ${cut(f.what, 200)}. Playbook '${cut(f.playbook, NAME_MAX)}'.`,
      };
  }
}

function chinese(f: Facts, audience: Audience): AlertWords {
  const who = cut(f.customer ?? '一位客户', NAME_MAX);
  switch (f.signal) {
    case 'deck_opened': {
      const link = cut(f.link ?? '你的链接', NAME_MAX);
      return { title: `${who} 打开了《${link}》`, text: `${who} 正在阅读《${link}》。` };
    }
    case 'deck_read': {
      const link = cut(f.link ?? '你的链接', NAME_MAX);
      const percent = f.pageCount > 0 ? Math.round((100 * f.pagesRead) / f.pageCount) : 0;
      const read = `已读 ${percent}%，用时 ${duration(f.seconds, 'zh-CN')}。`;
      return {
        title: `${who} 阅读了《${link}》${f.pageCount} 页中的 ${f.pagesRead} 页（${duration(f.seconds, 'zh-CN')}）`,
        text: f.hot === undefined ? read : `${read}已成为热门线索：${hotWhy(f.hot, chineseWhy(f.hot), ZH) || '参与度正在上升'}。`,
      };
    }
    case 'revisit': {
      const link = cut(f.link ?? '你的链接', NAME_MAX);
      return { title: `${who} 再次查看《${link}》`, text: `时隔 ${f.days} 天后首次查看。` };
    }
    case 'forward': {
      const link = cut(f.link ?? '你的链接', NAME_MAX);
      return f.email === null
        ? { title: `《${link}》可能被转发了`, text: `发给 ${who} 的链接有新的读者在另一台设备、另一个网络上打开。` }
        : { title: `《${link}》被转发了`, text: `发给 ${who} 的链接有新的读者打开（${cut(f.email, 254)}）。` };
    }
    case 'task_due':
      return { title: `任务到期：${cut(f.title, 200)}`, text: `客户 ${who}，到期时间 ${f.dueAt}。` };
    case 'mention':
      return {
        title: `${cut(f.author ?? '一位同事', NAME_MAX)} 在笔记中提到了${audience === 'member' ? '你' : ` ${cut(f.mentioned ?? '一位同事', NAME_MAX)}`}`,
        text: `关于 ${who} 的笔记：“${f.excerpt}”`,
      };
    case 'hot_lead':
      return { title: `${who} 成为热门线索`, text: hotWhy(f, chineseWhy(f), ZH) || `${who} 的参与度正在上升。` };
    case 'playbook':
      return {
        title: `${cut(f.playbook, NAME_MAX)}：${who}`,
        text: `${who}：${cut(f.whatZh, 200)}。自动化剧本《${cut(f.playbook, NAME_MAX)}》。`,
      };
  }
}

/** The words of an alert in a language, for the member told (or, `team`, for the project's channels). */
export function wordsOf(facts: Facts, locale: AlertLocale, audience: Audience = 'member'): AlertWords {
  return locale === 'zh-CN' ? chinese(facts, audience) : english(facts, audience);
}

/** The words in every language, for the team (an Alert event carries them all; the channels post them). */
export function allWords(facts: Facts): Record<AlertLocale, AlertWords> {
  return { 'en-US': english(facts, 'team'), 'zh-CN': chinese(facts, 'team') };
}
