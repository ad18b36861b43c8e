/**
 * A small streaming XML scanner for the parts of an XLSX workbook an import reads (shared strings,
 * a sheet, the workbook and its relationships). Written here rather than taken from a SAX library
 * because every piece it holds is bounded: markup longer than 64 KiB is refused, and text reaches
 * the handler in pieces (a library would gather a text node whole, which a deflated archive can make
 * hundreds of megabytes long). Element names lose their namespace prefix. A DOCTYPE is refused
 * (no workbook has one; entity expansion is an attack).
 */
export class XmlRefused extends Error {}

export interface XmlHandler {
  /** An element opened; `attrs` is its attribute text, read with `attribute()`. A self-closing element is closed at once. */
  open(name: string, attrs: string): void;
  close(name: string): void;
  /** Text between markup, entities decoded; one text node may come in several pieces. */
  text(text: string): void;
}

const MAX_MARKUP = 64 * 1024;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Text with its character and the five predefined entity references decoded; anything else is kept as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref] ?? whole;
  });
}

/** One attribute's value in an element's attribute text (decoded), or undefined. */
export function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attrs);
  if (!m) return undefined;
  return decodeEntities(m[1] ?? m[2] ?? '');
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

/** Where the tag starting at `from` ends (its `>`), quotes respected; -1 when the buffer ends first. */
function tagEnd(buf: string, from: number): number {
  let quote = 0;
  for (let i = from; i < buf.length; i += 1) {
    const c = buf.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) {
      quote = c;
    } else if (c === 0x3e) {
      return i;
    }
  }
  return -1;
}

export class XmlScanner {
  private buf = '';

  constructor(private readonly handler: XmlHandler) {}

  /** Scans what arrived; an incomplete construct at the end waits for the next piece. */
  push(text: string): void {
    const buf = this.buf + text;
    let pos = 0;
    for (;;) {
      const lt = buf.indexOf('<', pos);
      if (lt < 0) {
        pos = this.textUpTo(buf, pos, buf.length, true);
        break;
      }
      if (lt > pos) this.handler.text(decodeEntities(buf.slice(pos, lt)));
      const end = this.markup(buf, lt);
      if (end < 0) {
        pos = lt;
        break;
      }
      pos = end;
    }
    this.buf = buf.slice(pos);
    if (this.buf.length > MAX_MARKUP) throw new XmlRefused(`it holds markup longer than ${MAX_MARKUP} characters`);
  }

  /** The end of the input: anything left unfinished is malformed. */
  end(): void {
    if (this.buf.trim() !== '') throw new XmlRefused('its XML ends in the middle of an element');
  }

  /** Emits text up to `to`, keeping back a trailing `&…` that the next piece may complete. Answers where scanning stopped. */
  private textUpTo(buf: string, from: number, to: number, keepPartial: boolean): number {
    let cut = to;
    if (keepPartial) {
      const amp = buf.lastIndexOf('&', to - 1);
      if (amp >= from && to - amp < 12 && !buf.includes(';', amp)) cut = amp;
    }
    if (cut > from) this.handler.text(decodeEntities(buf.slice(from, cut)));
    return cut;
  }

  /** Handles the markup at `lt`; answers the position after it, or -1 when it is not complete yet. */
  private markup(buf: string, lt: number): number {
    const next = buf.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */) return this.special(buf, lt);
    const gt = tagEnd(buf, lt + 1);
    if (gt < 0) return -1;
    if (next === 0x2f /* / */) {
      this.handler.close(localName(buf.slice(lt + 2, gt).trim()));
      return gt + 1;
    }
    const selfClosing = buf.charCodeAt(gt - 1) === 0x2f;
    const end = selfClosing ? gt - 1 : gt;
    let space = lt + 1;
    while (space < end && buf.charCodeAt(space) > 0x20) space += 1;
    const name = localName(buf.slice(lt + 1, space));
    this.handler.open(name, space < end ? buf.slice(space, end) : '');
    if (selfClosing) this.handler.close(name);
    return gt + 1;
  }

  /** A comment, CDATA section, processing instruction or DOCTYPE at `lt`. */
  private special(buf: string, lt: number): number {
    if (buf.startsWith('<!--', lt)) {
      const end = buf.indexOf('-->', lt + 4);
      return end < 0 ? -1 : end + 3;
    }
    if (buf.startsWith('<![CDATA[', lt)) {
      const end = buf.indexOf(']]>', lt + 9);
      if (end < 0) return -1;
      this.handler.text(buf.slice(lt + 9, end));
      return end + 3;
    }
    if (buf.startsWith('<?', lt)) {
      const end = buf.indexOf('?>', lt + 2);
      return end < 0 ? -1 : end + 2;
    }
    if (buf.length - lt < 9) return -1;
    throw new XmlRefused('its XML has a DOCTYPE');
  }
}
