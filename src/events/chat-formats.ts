import { createHmac } from 'node:crypto';
import type { AlertLocale, AlertWords } from './alert-events.ts';

/**
 * The messages an alert posts to a chat channel (docs/alerts.md "Chat channels"), in each platform's
 * own format and signature. Pure: a request from an alert and a moment, and a verdict on the
 * platform's answer. The alert's words are plain text written by the alerts module; each format
 * escapes them for its own markup, so a customer named `<!channel>` or `[x](http://…)` pings no one
 * and links nowhere.
 */

/** The chat platforms a notification channel posts to (a channel of kind `webhook` is signed as webhooks are). */
export const CHAT_KINDS = ['slack', 'wecom', 'dingtalk', 'feishu'] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];

/** What a chat message is made from: the body of an `Alert` event (alert-events.ts), as far as a chat needs it. */
export interface ChatAlert {
  /** Each language's words; a channel posts its own language's, else English. */
  words: Partial<Record<AlertLocale, AlertWords>>;
  /** Where the customer opens in the console (null when the server has no public address). */
  url: string | null;
}

/** One HTTP request to a chat platform. */
export interface ChatRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** A platform's verdict on a message: delivered, or why not. */
export interface ChatVerdict {
  ok: boolean;
  error: string | null;
}

const OPEN: Record<AlertLocale, string> = { 'en-US': 'Open in Rapport', 'zh-CN': '在 Rapport 中查看' };
/** WeCom refuses a markdown message over 4,096 bytes. */
const WECOM_MAX_BYTES = 4096;

function wordsOf(alert: ChatAlert, locale: AlertLocale): AlertWords {
  return alert.words[locale] ?? alert.words['en-US'] ?? { title: 'Rapport', text: '' };
}

/** One line: no line breaks (a name cannot start a heading or a quote of its own). */
const oneLine = (s: string): string => s.replace(/[\r\n\u2028\u2029]+/g, ' ');

/** Slack's mrkdwn: `&`, `<` and `>` as entities, which is all Slack asks (no mention, no link survives). */
export function slackEscape(s: string): string {
  return oneLine(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * DingTalk's and WeCom's markdown: square brackets (links and images), angle brackets (WeCom's
 * `<@userid>` mentions and `<font>` tags, inline HTML) and backticks become look-alike characters, so
 * user text renders as text and never as a link, a mention or markup.
 */
export function markdownEscape(s: string): string {
  const swap: Record<string, string> = { '[': '［', ']': '］', '<': '‹', '>': '›', '`': 'ˋ' };
  return oneLine(s).replace(/[[\]<>`]/g, (c) => swap[c] ?? c);
}

/** Cuts UTF-8 text to at most `bytes`, on a character boundary, marking the cut. */
function cutBytes(s: string, bytes: number): string {
  if (Buffer.byteLength(s) <= bytes) return s;
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch) > bytes - 3) break;
    out += ch;
  }
  return `${out}…`;
}

/** DingTalk's and Feishu's signature: base64 HMAC-SHA256 of "timestamp\nsecret" (DingTalk keyed by the secret over it; Feishu keyed by it over nothing). */
export function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

export function feishuSign(secret: string, timestampSeconds: number): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

function slack(alert: ChatAlert, locale: AlertLocale) {
  const w = wordsOf(alert, locale);
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*${slackEscape(w.title)}*\n${slackEscape(w.text)}` } }];
  if (alert.url !== null) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${alert.url.replace(/[|>]/g, '')}|${OPEN[locale]}>` }] });
  }
  // `text` is what notifications and clients without blocks show.
  return { text: slackEscape(`${w.title}: ${w.text}`), blocks };
}

/** A headline, the text (cut to `maxBytes`), and the link to the customer. */
function markdownText(alert: ChatAlert, locale: AlertLocale, headline: (title: string) => string, maxBytes: number): string {
  const w = wordsOf(alert, locale);
  const link = alert.url !== null ? `\n\n[${OPEN[locale]}](${alert.url.replace(/[()\s]/g, encodeURIComponent)})` : '';
  return `${headline(cutBytes(markdownEscape(w.title), 400))}\n\n${cutBytes(markdownEscape(w.text), maxBytes)}${link}`;
}

function feishu(alert: ChatAlert, locale: AlertLocale) {
  const w = wordsOf(alert, locale);
  // A post's text nodes are literal text: nothing in them becomes an @-mention or a link.
  const lines: unknown[][] = [[{ tag: 'text', text: oneLine(w.text) }]];
  if (alert.url !== null) lines.push([{ tag: 'a', text: OPEN[locale], href: alert.url }]);
  return { msg_type: 'post', content: { post: { [locale === 'zh-CN' ? 'zh_cn' : 'en_us']: { title: oneLine(w.title), content: lines } } } };
}

/**
 * The request that posts `alert` to a channel of `kind` at `now` (epoch ms), in `locale`:
 * - Slack incoming webhook: `{text, blocks}` to the URL, which is the credential;
 * - WeCom group robot: `{msgtype:"markdown", markdown:{content}}` to the URL, whose `key` is the credential;
 * - DingTalk custom robot: `{msgtype:"markdown", markdown:{title, text}}`; with a secret, `timestamp`
 *   (ms) and `sign` (base64 HMAC-SHA256 of "timestamp\nsecret" keyed by the secret) added to the query;
 * - Feishu custom bot: `{msg_type:"post", content}`; with a secret, `timestamp` (s) and `sign` (base64
 *   HMAC-SHA256 keyed by "timestamp\nsecret" over nothing) in the body.
 */
export function chatRequest(
  kind: ChatKind,
  channel: { url: string; secret: string | null },
  alert: ChatAlert,
  locale: AlertLocale,
  now: number,
): ChatRequest {
  const headers = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Rapport-Alerts/1' };
  switch (kind) {
    case 'slack':
      return { url: channel.url, body: JSON.stringify(slack(alert, locale)), headers };
    case 'wecom': {
      // Within WeCom's 4,096 bytes: the headline and the link are bounded, the text takes the rest.
      const content = markdownText(alert, locale, (t) => `**${t}**`, WECOM_MAX_BYTES - 1200);
      return { url: channel.url, body: JSON.stringify({ msgtype: 'markdown', markdown: { content } }), headers };
    }
    case 'dingtalk': {
      const url = new URL(channel.url);
      if (channel.secret !== null) {
        url.searchParams.set('timestamp', String(now));
        url.searchParams.set('sign', dingtalkSign(channel.secret, now));
      }
      const title = oneLine(wordsOf(alert, locale).title);
      return {
        url: url.href,
        body: JSON.stringify({ msgtype: 'markdown', markdown: { title, text: markdownText(alert, locale, (t) => `#### ${t}`, 8000) } }),
        headers,
      };
    }
    case 'feishu': {
      const seconds = Math.floor(now / 1000);
      const signed = channel.secret === null ? {} : { timestamp: String(seconds), sign: feishuSign(channel.secret, seconds) };
      return { url: channel.url, body: JSON.stringify({ ...signed, ...feishu(alert, locale) }), headers };
    }
  }
}

/**
 * Whether a platform took the message: an HTTP 2xx, and for WeCom and DingTalk `errcode` 0, for
 * Feishu `code` 0 (or its older `StatusCode`), in the answer's JSON; Slack answers `ok`. Otherwise
 * the platform's own code and message are the error (a wrong signature, a rate limit, a removed robot).
 */
export function chatVerdict(kind: ChatKind, status: number, answer: string): ChatVerdict {
  if (status < 200 || status >= 300) return { ok: false, error: `HTTP ${status}${answer ? `: ${answer.slice(0, 200)}` : ''}` };
  if (kind === 'slack') return { ok: true, error: null };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(answer) as Record<string, unknown>;
  } catch {
    return { ok: false, error: `the ${kind} answer is not JSON: ${answer.slice(0, 200)}` };
  }
  const code = kind === 'feishu' ? (parsed.code ?? parsed.StatusCode) : parsed.errcode;
  if (code === 0) return { ok: true, error: null };
  const message = kind === 'feishu' ? (parsed.msg ?? parsed.StatusMessage) : parsed.errmsg;
  return { ok: false, error: `${kind} ${String(code)}: ${String(message ?? '').slice(0, 200)}` };
}
