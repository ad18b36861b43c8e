/**
 * A note's Markdown as the console shows it (docs/console.md "Notes"): the console has no Markdown
 * renderer, so a note is its text with its line breaks, its links and its mentions, nothing else;
 * never HTML (the pieces are drawn as React text and anchors). Pure.
 */

export type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'link'; text: string; href: string }
  /** `known`: the server kept the id in the note's `mentions` (a member who may see the customer). */
  | { kind: 'mention'; label: string; id: number; known: boolean };

/** A mention as the server reads it: `@[label](member:<id>)` (src/modules/tasks/mentions.ts). */
const MENTION = /@\[([^\]\r\n]{1,100})\]\(member:(\d{1,10})\)/y;
/** A Markdown link `[text](address)`, its address without spaces. */
const LINK = /\[([^\]\r\n]{1,500})\]\(([^)\s]{1,2000})\)/y;
/** An address written out. */
const BARE = /(?:https?:\/\/|mailto:)[^\s<>"]+/y;
/** Punctuation that ends a sentence rather than an address written out in it. */
const TRAILING = /[.,;:!?'"）。，；：！？)\]]+$/;

/** An address safe to link to: http(s) or mailto, nothing a browser would run. */
export function safeHref(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function matchAt(re: RegExp, line: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(line);
}

/** A piece starting at `at` (a mention, a link, an address), and where the text goes on after it. */
function pieceAt(line: string, at: number, mentions: ReadonlySet<number>): { piece: Piece; end: number } | undefined {
  const c = line[at];
  if (c === '@') {
    const m = matchAt(MENTION, line, at);
    if (m) {
      const id = Number(m[2]);
      return { piece: { kind: 'mention', label: m[1] as string, id, known: mentions.has(id) }, end: at + m[0].length };
    }
  } else if (c === '[') {
    const m = matchAt(LINK, line, at);
    const href = m ? safeHref(m[2] as string) : undefined;
    if (m && href) return { piece: { kind: 'link', text: m[1] as string, href }, end: at + m[0].length };
  } else if (c === 'h' || c === 'm') {
    // Not inside a Latin word ("xhttps://" is text); Chinese text runs straight into an address.
    if (at > 0 && /[A-Za-z0-9]/.test(line[at - 1] as string)) return undefined;
    const m = matchAt(BARE, line, at);
    if (m) {
      const address = m[0].replace(TRAILING, '');
      const href = safeHref(address);
      if (href && /^(?:https?:\/\/|mailto:)./.test(address))
        return { piece: { kind: 'link', text: address, href }, end: at + address.length };
    }
  }
  return undefined;
}

/** One line of a note in pieces: text, links and mentions, in order (adjacent text joined). */
export function lineToPieces(line: string, mentions: ReadonlySet<number>): Piece[] {
  const out: Piece[] = [];
  let text = '';
  for (let at = 0; at < line.length;) {
    const found = pieceAt(line, at, mentions);
    if (found) {
      if (text) out.push({ kind: 'text', text });
      text = '';
      out.push(found.piece);
      at = found.end;
    } else {
      text += line[at];
      at += 1;
    }
  }
  if (text) out.push({ kind: 'text', text });
  return out;
}

/** A note's lines, each in pieces. */
export function noteToLines(content: string, mentions: readonly number[]): Piece[][] {
  const known = new Set(mentions);
  return content.split(/\r\n|\r|\n/).map((line) => lineToPieces(line, known));
}

/**
 * What the mention picker writes for a member: the server's form, its label the member's name
 * without the characters the form cannot hold (brackets, line breaks), at most 100 characters.
 */
export function mentionText(name: string, id: number): string {
  const label = Array.from(name.replace(/[[\]\r\n]/g, ' ').trim() || `#${id}`)
    .slice(0, 100)
    .join('')
    .trim();
  return `@[${label}](member:${id})`;
}
