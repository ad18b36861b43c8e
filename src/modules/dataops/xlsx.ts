import { StringDecoder } from 'node:string_decoder';
import {
  MAX_COLUMNS,
  MAX_CELL_CHARS,
  MAX_ROW_CHARS,
  MAX_SHARED_STRING_BYTES,
  type ReadLimits,
  UnreadableFile,
  tooLongCell,
  tooManyRows,
} from './limits.ts';
import { XmlRefused, type XmlHandler, XmlScanner, attribute } from './xml.ts';
import { type ZipEntry, ZipRefused, entryBytes, zipEntries } from './zip.ts';

/**
 * The rows of an XLSX workbook's first sheet, read from the archive on disk entry by entry and
 * streamed through a bounded XML scanner (xml.ts, zip.ts). The shared strings a sheet's cells refer
 * to are read first: for an import, into one compact buffer (their UTF-8 bytes and two offsets each,
 * no string object per entry); for a preview or a header, only those its first rows use. Their count
 * and bytes are bounded, as are the archive's inflated size, the rows, columns and cell lengths.
 */
interface Book {
  path: string;
  sheet: ZipEntry;
  sharedStrings: ZipEntry | undefined;
}

const fmt = (v: number) => v.toLocaleString('en-US');

let lastBreath = performance.now();
/**
 * Gives the event loop a turn once reading has held it for 5 ms: inflated chunks already buffered
 * are handed over in microtasks, so without this one reader (or several) could starve every request.
 */
async function breathe(): Promise<void> {
  if (performance.now() - lastBreath < 5) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastBreath = performance.now();
}

/** Feeds an entry's XML to a handler, until the entry ends or `done()` says enough was read. */
async function scanEntry(path: string, entry: ZipEntry, handler: XmlHandler, done: () => boolean = () => false): Promise<void> {
  const scanner = new XmlScanner(handler);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of entryBytes(path, entry)) {
    scanner.push(decoder.write(chunk));
    if (done()) return;
    await breathe();
  }
  scanner.push(decoder.end());
  scanner.end();
}

function refusal(err: unknown): unknown {
  if (err instanceof ZipRefused || err instanceof XmlRefused) return new UnreadableFile(`The XLSX workbook cannot be read: ${err.message}`);
  return err;
}

/** An entry's path from a relationship target, relative to the folder of the part that names it. */
function resolveTarget(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const piece of target.split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.' && piece !== '') parts.push(piece);
  }
  return parts.join('/');
}

/** The workbook's first sheet (the first in its own order, not the archive's) and its shared strings. */
async function openBook(path: string, limits: ReadLimits): Promise<Book> {
  const entries = await zipEntries(path, limits.maxUncompressedBytes);
  const workbookPath = entries.has('xl/workbook.xml') ? 'xl/workbook.xml' : [...entries.keys()].find((k) => /(^|\/)workbook\.xml$/.test(k));
  const workbook = workbookPath === undefined ? undefined : entries.get(workbookPath);
  if (!workbook || workbookPath === undefined) throw new UnreadableFile('The XLSX workbook cannot be read: it has no workbook part');
  let firstSheetId: string | undefined;
  await scanEntry(
    path,
    workbook,
    {
      open: (name, attrs) => {
        if (name === 'sheet' && firstSheetId === undefined) firstSheetId = attribute(attrs, 'id') ?? '';
      },
      close: () => undefined,
      text: () => undefined,
    },
    () => firstSheetId !== undefined,
  );
  const relsPath = resolveTarget(workbookPath, `_rels/${workbookPath.split('/').pop() as string}.rels`);
  const targets = new Map<string, string>();
  let sharedPath: string | undefined;
  const rels = entries.get(relsPath);
  if (rels) {
    await scanEntry(path, rels, {
      open: (name, attrs) => {
        if (name !== 'Relationship' || targets.size >= 10_000) return;
        const target = resolveTarget(workbookPath, attribute(attrs, 'Target') ?? '');
        targets.set(attribute(attrs, 'Id') ?? '', target);
        if ((attribute(attrs, 'Type') ?? '').endsWith('/sharedStrings')) sharedPath = target;
      },
      close: () => undefined,
      text: () => undefined,
    });
  }
  const sheetPath =
    (firstSheetId !== undefined ? targets.get(firstSheetId) : undefined) ??
    [...entries.keys()].filter((k) => /^xl\/worksheets\/[^/]+\.xml$/.test(k)).sort()[0];
  const sheet = sheetPath === undefined ? undefined : entries.get(sheetPath);
  if (!sheet) throw new UnreadableFile('The XLSX workbook has no worksheet');
  return { path, sheet, sharedStrings: entries.get(sharedPath ?? 'xl/sharedStrings.xml') };
}

/** Shared strings kept as UTF-8 in 1 MiB chunks (a string never spans two), with a start and length each. */
class StringTable {
  private static readonly CHUNK = 1024 * 1024;
  private chunks: Buffer[] = [];
  private used = StringTable.CHUNK;
  private starts = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);
  count = 0;
  bytes = 0;

  add(text: string): void {
    const len = Buffer.byteLength(text);
    if (this.used + len > StringTable.CHUNK) {
      this.chunks.push(Buffer.allocUnsafe(StringTable.CHUNK));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    (this.chunks[chunk] as Buffer).write(text, this.used);
    if (this.count === this.starts.length) {
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts);
      this.lengths = grow(this.lengths);
    }
    this.starts[this.count] = chunk * StringTable.CHUNK + this.used;
    this.lengths[this.count] = len;
    this.used += len;
    this.count += 1;
  }

  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const start = this.starts[index] as number;
    const chunk = this.chunks[Math.floor(start / StringTable.CHUNK)] as Buffer;
    const at = start % StringTable.CHUNK;
    return chunk.toString('utf8', at, at + (this.lengths[index] as number));
  }
}

/**
 * Reads the shared strings, each handed to `keep` with its index, refusing past the count and byte
 * limits (a declared `uniqueCount` over the limit is refused before reading on).
 */
async function readSharedStrings(book: Book, limits: ReadLimits, keep: (index: number, text: string) => void): Promise<void> {
  if (!book.sharedStrings) return;
  let count = 0;
  let bytes = 0;
  let inSi = false;
  let textDepth = 0;
  let phonetic = 0;
  let parts: string[] = [];
  let chars = 0;
  const tooMany = () =>
    new UnreadableFile(`The XLSX workbook has more than ${fmt(limits.maxSharedStrings)} shared strings (IMPORT_XLSX_MAX_STRINGS)`);
  await scanEntry(book.path, book.sharedStrings, {
    open: (name, attrs) => {
      if (name === 'sst') {
        const declared = Number(attribute(attrs, 'uniqueCount') ?? attribute(attrs, 'count') ?? 0);
        if (declared > limits.maxSharedStrings) throw tooMany();
      } else if (name === 'si') {
        inSi = true;
        parts = [];
        chars = 0;
      } else if (name === 'rPh') phonetic += 1;
      else if (name === 't' && inSi) textDepth += 1;
    },
    close: (name) => {
      if (name === 'rPh') phonetic = Math.max(0, phonetic - 1);
      else if (name === 't') textDepth = Math.max(0, textDepth - 1);
      else if (name === 'si' && inSi) {
        inSi = false;
        if (count >= limits.maxSharedStrings) throw tooMany();
        const text = parts.join('');
        bytes += Buffer.byteLength(text) + 8;
        if (bytes > MAX_SHARED_STRING_BYTES)
          throw new UnreadableFile(`The XLSX workbook's shared strings are larger than ${fmt(MAX_SHARED_STRING_BYTES)} bytes`);
        keep(count, text);
        count += 1;
      }
    },
    text: (text) => {
      if (!inSi || textDepth === 0 || phonetic > 0) return;
      chars += text.length;
      if (chars > MAX_CELL_CHARS)
        throw new UnreadableFile(`The XLSX workbook has a shared string longer than ${fmt(MAX_CELL_CHARS)} characters`);
      parts.push(text);
    },
  });
}

/** A cell reference's column from 0 (`B7` → 1), refused beyond the column limit. */
function columnOf(ref: string, row: number): number | undefined {
  const m = /^([A-Za-z]{1,3})/.exec(ref);
  if (!m) return undefined;
  let col = 0;
  for (const ch of (m[1] as string).toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  if (col > MAX_COLUMNS) throw new UnreadableFile(`Row ${row} has a cell beyond column ${fmt(MAX_COLUMNS)}`);
  return col - 1;
}

function cellValue(type: string, raw: string, shared: (index: number) => string | number): string | number {
  switch (type) {
    case 's':
      return shared(Number(raw.trim()));
    case 'b':
      return raw.trim() === '1' ? 'true' : raw.trim() === '0' ? 'false' : '';
    case 'e':
      return '';
    case 'n': {
      const text = raw.trim();
      const value = Number(text);
      return text !== '' && Number.isFinite(value) ? String(value) : text;
    }
    default:
      return raw; // inlineStr, str (a formula's text), d (an ISO date)
  }
}

type RawCell = string | number;

/** Builds a sheet's rows from its XML: cells placed by their reference, blank rows left out. */
class SheetHandler implements XmlHandler {
  private ready: RawCell[][] = [];
  private cells: RawCell[] | null = null;
  private rowRef = 0;
  private rowChars = 0;
  private nextCol = 0;
  private inCell = false;
  private col = 0;
  private type = 'n';
  private inValue = false;
  private inInline = false;
  private textDepth = 0;
  private phonetic = 0;
  private parts: string[] = [];
  private chars = 0;
  private emitted = 0;

  constructor(
    private readonly shared: (index: number) => RawCell,
    private readonly limits: ReadLimits,
  ) {}

  /** The rows completed since the last call. */
  take(): RawCell[][] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  open(name: string, attrs: string): void {
    if (name === 'row') {
      this.cells = [];
      this.nextCol = 0;
      this.rowChars = 0;
      this.rowRef = Number(attribute(attrs, 'r')) || this.emitted + 1;
    } else if (name === 'c' && this.cells) {
      this.inCell = true;
      this.col = columnOf(attribute(attrs, 'r') ?? '', this.rowRef) ?? this.nextCol;
      if (this.col >= MAX_COLUMNS) throw new UnreadableFile(`Row ${this.rowRef} has more than ${fmt(MAX_COLUMNS)} columns`);
      this.type = attribute(attrs, 't') ?? 'n';
      this.parts = [];
      this.chars = 0;
    } else if (name === 'v' && this.inCell) this.inValue = true;
    else if (name === 'is' && this.inCell) this.inInline = true;
    else if (name === 't' && this.inInline) this.textDepth += 1;
    else if (name === 'rPh') this.phonetic += 1;
  }

  close(name: string): void {
    if (name === 'v') this.inValue = false;
    else if (name === 't') this.textDepth = Math.max(0, this.textDepth - 1);
    else if (name === 'is') this.inInline = false;
    else if (name === 'rPh') this.phonetic = Math.max(0, this.phonetic - 1);
    else if (name === 'c' && this.inCell && this.cells) {
      this.inCell = false;
      const value = cellValue(this.type, this.parts.join(''), this.shared);
      if (typeof value === 'string') {
        this.rowChars += value.length;
        if (this.rowChars > MAX_ROW_CHARS) throw new UnreadableFile(`Row ${this.rowRef} is longer than ${fmt(MAX_ROW_CHARS)} characters`);
      }
      this.cells[this.col] = value;
      this.nextCol = this.col + 1;
    } else if (name === 'row' && this.cells) {
      const cells = Array.from(this.cells, (c) => c ?? '');
      this.cells = null;
      if (!cells.some((c) => typeof c === 'number' || c.trim() !== '')) return;
      this.emitted += 1;
      if (this.emitted - 1 > this.limits.maxRows) throw tooManyRows(this.limits);
      this.ready.push(cells);
    }
  }

  text(text: string): void {
    if (!this.inCell || !(this.inValue || (this.inInline && this.textDepth > 0 && this.phonetic === 0))) return;
    this.chars += text.length;
    if (this.chars > MAX_CELL_CHARS) throw tooLongCell(this.rowRef);
    this.parts.push(text);
  }
}

/** The sheet's non-blank rows, in order; a shared-string cell is what `shared` makes of its index. */
async function* sheetRows(book: Book, limits: ReadLimits, shared: (index: number) => RawCell): AsyncGenerator<RawCell[]> {
  const handler = new SheetHandler(shared, limits);
  const scanner = new XmlScanner(handler);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of entryBytes(book.path, book.sheet)) {
    scanner.push(decoder.write(chunk));
    yield* handler.take();
    await breathe();
  }
  scanner.push(decoder.end());
  scanner.end();
  yield* handler.take();
}

/** Every row of the first sheet, the header first, as text (the import's reader). */
export async function* xlsxRows(path: string, limits: ReadLimits): AsyncGenerator<string[]> {
  try {
    const book = await openBook(path, limits);
    const table = new StringTable();
    await readSharedStrings(book, limits, (_, text) => table.add(text));
    for await (const row of sheetRows(book, limits, (i) => table.get(i) ?? '')) yield row as string[];
  } catch (err) {
    throw refusal(err);
  }
}

/** Which shared strings are blank, a bit each: enough to leave out blank rows without holding the strings. */
async function blankStrings(book: Book, limits: ReadLimits): Promise<(index: number) => boolean> {
  let bits = new Uint8Array(1024);
  await readSharedStrings(book, limits, (i, text) => {
    if (text.trim() !== '') return;
    if (i >> 3 >= bits.length) {
      const grown = new Uint8Array(Math.max(bits.length * 2, (i >> 3) + 1));
      grown.set(bits);
      bits = grown;
    }
    bits[i >> 3] = (bits[i >> 3] as number) | (1 << (i & 7));
  });
  return (i) => i >= 0 && i >> 3 < bits.length && ((bits[i >> 3] as number) & (1 << (i & 7))) !== 0;
}

/** The rows of the first sheet, the header included, holding no shared string (an import's count). */
export async function xlsxRowCount(path: string, limits: ReadLimits): Promise<number> {
  try {
    const book = await openBook(path, limits);
    const blank = await blankStrings(book, limits);
    let rows = 0;
    for await (const _ of sheetRows(book, limits, (i) => (blank(i) ? '' : i))) rows += 1;
    return rows;
  } catch (err) {
    throw refusal(err);
  }
}

/** Rows read past the `n` a sample asks for, in case some turn out blank once their shared strings are known. */
const SAMPLE_SPARE = 64;

/**
 * The first `n` rows (the header included), and proof that the whole workbook's shared strings are
 * within their limits, in one pass over them that keeps only the ones these rows use.
 */
export async function xlsxSample(path: string, limits: ReadLimits, n: number): Promise<string[][]> {
  try {
    const book = await openBook(path, limits);
    const rows: RawCell[][] = [];
    // The row limit is the count's to enforce (before a job writes), not a sample's.
    const sheet = sheetRows(book, { ...limits, maxRows: Number.MAX_SAFE_INTEGER }, (i) => i);
    try {
      while (rows.length < n + SAMPLE_SPARE) {
        const next = await sheet.next();
        if (next.done) break;
        rows.push(next.value);
      }
    } finally {
      await sheet.return(undefined);
    }
    const wanted = new Set(rows.flat().filter((c): c is number => typeof c === 'number'));
    const found = new Map<number, string>();
    await readSharedStrings(book, limits, (i, text) => {
      if (wanted.has(i)) found.set(i, text);
    });
    return rows
      .map((cells) => cells.map((c) => (typeof c === 'number' ? (found.get(c) ?? '') : c)))
      .filter((cells) => cells.some((c) => c.trim() !== ''))
      .slice(0, n);
  } catch (err) {
    throw refusal(err);
  }
}
