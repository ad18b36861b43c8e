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
      hot?: { score: number | null; reasons: string[] };
    }
  | { signal: 'task_due'; customer: string | null; title: string; dueAt: string }
  | { signal: 'mention'; customer: string | null; author: string | null; mentioned: string | null; excerpt: string }
  | { signal: 'hot_lead'; customer: string | null; score: number | null; reasons: string[] };

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
function hotWhy(hot: { score: number | null; reasons: string[] }, between: string, after: string, word: string): string {
  const why = hot.reasons.map((r) => cut(r, 200)).join(between);
  const score = hot.score === null ? '' : `${word} ${hot.score}`;
  return [score, why].filter(Boolean).join(after);
}

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
        text: f.hot === undefined ? read : `${read} Now a hot lead: ${hotWhy(f.hot, '; ', ': ', 'Score') || 'engagement rising'}.`,
      };
    }
    case 'task_due':
      return { title: `Task due: ${cut(f.title, 200)}`, text: `About ${who}, due ${f.dueAt}.` };
    case 'mention':
      return {
        title: `${cut(f.author ?? 'A colleague', NAME_MAX)} mentioned ${audience === 'member' ? 'you' : cut(f.mentioned ?? 'a colleague', NAME_MAX)}`,
        text: `In a note on ${who}: “${f.excerpt}”`,
      };
    case 'hot_lead':
      return { title: `${who} is a hot lead`, text: hotWhy(f, '; ', ': ', 'Score') || `${who}'s engagement is rising.` };
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
        text: f.hot === undefined ? read : `${read}已成为热门线索：${hotWhy(f.hot, '；', '：', '评分') || '参与度正在上升'}。`,
      };
    }
    case 'task_due':
      return { title: `任务到期：${cut(f.title, 200)}`, text: `客户 ${who}，到期时间 ${f.dueAt}。` };
    case 'mention':
      return {
        title: `${cut(f.author ?? '一位同事', NAME_MAX)} 在笔记中提到了${audience === 'member' ? '你' : ` ${cut(f.mentioned ?? '一位同事', NAME_MAX)}`}`,
        text: `关于 ${who} 的笔记：“${f.excerpt}”`,
      };
    case 'hot_lead':
      return { title: `${who} 成为热门线索`, text: hotWhy(f, '；', '：', '评分') || `${who} 的参与度正在上升。` };
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
