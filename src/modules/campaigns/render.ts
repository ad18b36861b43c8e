/**
 * A campaign's mail, from its HTML template (docs/campaigns.md): merge fields, rewritten links, the
 * open pixel, the unsubscribe footer and the plain-text part. Pure.
 */

/** The merge fields a template may name, and the customer field each reads. */
export const MERGE_FIELDS = ['name', 'email', 'company', 'title', 'phone'] as const;
/**
 * A sequence's e-mail steps know two more (docs/sequences.md): the sending member's name and the
 * customer's own link (a share link of the sequence's deck directed at them).
 */
export const SEQUENCE_MERGE_FIELDS = [...MERGE_FIELDS, 'owner_name', 'own_link'] as const;
export type MergeField = (typeof SEQUENCE_MERGE_FIELDS)[number];
export type MergeValues = Partial<Record<MergeField, string | null>>;

const MERGE_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** A link in an `<a>` tag: its quoted `href`. */
const HREF_RE = /(<a\b[^>]*?\bhref\s*=\s*)("([^"]*)"|'([^']*)')/gi;
/** Where a rewritten link stands in a prepared template: `{{#L<position>}}` (templates may not contain `{{#`). */
const LINK_MARK_RE = /\{\{#L(\d+)\}\}/g;

/** Targets a campaign's links may have, at most. */
export const MAX_LINKS = 100;

export interface PreparedTemplate {
  /** The template with every http(s) link replaced by its position's mark. */
  html: string;
  /** The links' targets, by position. */
  targets: string[];
}

export class TemplateError extends Error {}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', '#39': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function httpTarget(raw: string): string | null {
  const value = decodeEntities(raw.trim());
  if (value.length > 2048) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * Checks the merge fields (a campaign's, or `fields`) and collects the links: every `<a href>` to an
 * http(s) address becomes a tracked link (the same address twice is one target); other links
 * (mailto:, anchors, a merge field such as `href="{{own_link}}"`) stay as written, and a merge field
 * there is filled (with the value escaped), untracked.
 */
export function prepareTemplate(html: string, fields: readonly MergeField[] = MERGE_FIELDS): PreparedTemplate {
  for (const m of html.matchAll(MERGE_RE)) {
    if (!(fields as readonly string[]).includes(m[1] as string)) {
      throw new TemplateError(`{{${m[1]}}} is not a merge field; use ${fields.map((f) => `{{${f}}}`).join(', ')}`);
    }
  }
  if (html.includes('\u0000')) throw new TemplateError('html must not contain NUL characters');
  if (html.includes('{{#')) throw new TemplateError('html must not contain {{#');
  const targets: string[] = [];
  const prepared = html.replace(HREF_RE, (whole, head: string, _quoted: string, dq: string | undefined, sq: string | undefined) => {
    const target = httpTarget(dq ?? sq ?? '');
    if (target === null) return whole;
    let position = targets.indexOf(target);
    if (position < 0) {
      if (targets.length >= MAX_LINKS) throw new TemplateError(`A campaign may link to at most ${MAX_LINKS} addresses`);
      position = targets.push(target) - 1;
    }
    return `${head}"{{#L${position}}}"`;
  });
  return { html: prepared, targets };
}

export interface MailAddresses {
  /** The tracked address of the link at `position`. */
  click(position: number): string;
  /** The open pixel's address; null leaves the pixel out (a preview, a test mail). */
  pixel: string | null;
  unsubscribe: string;
}

/** Merge values a preview shows when no customer is chosen. */
export const SAMPLE_VALUES: Required<MergeValues> = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines Ltd',
  title: 'Director',
  phone: '+44 20 7946 0000',
  owner_name: 'Charles Babbage',
  own_link: 'https://example.com/l/sample',
};

/** The merged HTML (values escaped) with its tracked links, pixel and unsubscribe footer, and its plain-text part. */
export function renderMail(template: string, values: MergeValues, urls: MailAddresses): { html: string; text: string } {
  // Links first: a merge value is inserted once and never read again, whatever it contains.
  const withLinks = template.replace(LINK_MARK_RE, (_w, n: string) => escapeHtml(urls.click(Number(n))));
  const linked = withLinks.replace(MERGE_RE, (_w, name: string) => escapeHtml(values[name as MergeField] ?? ''));
  const footer =
    `<p style="font-size:12px;color:#666">If you no longer want these e-mails, ` +
    `<a href="${escapeHtml(urls.unsubscribe)}">unsubscribe</a>.</p>` +
    (urls.pixel === null
      ? ''
      : `<img src="${escapeHtml(urls.pixel)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`);
  const close = linked.search(/<\/body\s*>/i);
  const html = close >= 0 ? `${linked.slice(0, close)}${footer}${linked.slice(close)}` : `${linked}\n${footer}`;
  const text = `${htmlToText(linked)}\n\n--\nUnsubscribe: ${urls.unsubscribe}\n`;
  return { html, text };
}

/** A readable plain-text rendering of mail HTML: blocks on their own lines, links as `text (address)`. */
export function htmlToText(html: string): string {
  let s = html
    .replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(
      /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_w, _q, dq?: string, sq?: string, inner?: string) => {
        const href = decodeEntities(dq ?? sq ?? '');
        const label = (inner ?? '').replace(/<[^>]*>/g, '').trim();
        if (label === '' || decodeEntities(label) === href) return href;
        return `${label} (${href})`;
      },
    )
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|h[1-6]|tr|table|ul|ol|blockquote)\s*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '');
  s = decodeEntities(s)
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n');
  return s.trim();
}

/** The normalised form of an address that suppression is keyed by: trimmed, lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
