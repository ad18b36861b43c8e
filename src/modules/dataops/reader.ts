import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { MAX_ROW_CHARS, type ReadLimits, UnreadableFile, checkRow, tooManyRows } from './limits.ts';
import { xlsxRowCount, xlsxRows, xlsxSample } from './xlsx.ts';

export { UnreadableFile } from './limits.ts';

/**
 * Reading an import's file a row at a time, at constant memory whatever its size: CSV through
 * csv-parse (decoded by iconv-lite when it is not UTF-8), XLSX through xlsx.ts (the archive's entries
 * streamed, never the whole workbook in memory). Each row is its cells as text, within the limits of
 * limits.ts.
 */
export type ImportFormat = 'csv' | 'xlsx';

const SAMPLE_BYTES = 64 * 1024;

/** The file's format from its first bytes (an XLSX is a ZIP archive), else from its name. */
export async function formatOf(path: string, fileName: string): Promise<ImportFormat> {
  const head = await firstBytes(path, 4);
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'xlsx';
  if (/\.xlsx$/i.test(fileName)) throw new UnreadableFile('The file is named .xlsx but is not an XLSX workbook');
  return 'csv';
}

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const handle = await fs.promises.open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Encodings a caller may name (anything iconv-lite knows is accepted; these are the usual ones). */
export function isKnownEncoding(name: string): boolean {
  return iconv.encodingExists(name);
}

/**
 * A CSV file's encoding: its byte order mark (UTF-8, UTF-16), else UTF-8 when its first 64 KiB
 * are valid UTF-8, else GB18030 (which reads GBK and GB2312, as Excel on a Chinese Windows saves).
 * A file with NUL bytes and no UTF-16 mark is not text.
 */
export async function detectEncoding(path: string): Promise<string> {
  const sample = await firstBytes(path, SAMPLE_BYTES);
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf16be';
  if (sample.includes(0)) throw new UnreadableFile('The file is not text (it holds NUL bytes): save it as CSV (UTF-8 or GBK) or XLSX');
  // A multi-byte character may be cut at the sample's end: leave up to three bytes out of the check.
  for (let cut = 0; cut <= Math.min(3, sample.length); cut += 1) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, sample.length - cut));
      return 'utf8';
    } catch {
      if (sample.length < SAMPLE_BYTES) break;
    }
  }
  return 'gb18030';
}

/**
 * The rows of a CSV file, header included, counted from its bytes without parsing: a line break
 * outside quotes ends a row, a line of nothing is none (as the parser skips it). Exact for UTF-8 and
 * GBK/GB18030, where `"` and line-feed bytes never occur inside a character; other encodings are
 * counted by parsing.
 */
export async function countCsvRows(path: string, encoding: string, limits: ReadLimits): Promise<number> {
  if (!/^(utf-?8|gbk|gb18030|gb2312|cp936)$/i.test(encoding)) {
    let n = 0;
    for await (const _ of csvRows(path, encoding, limits)) n += 1;
    return n;
  }
  let rows = 0;
  let quoted = false;
  let content = false;
  for await (const chunk of fs.createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i += 1) {
      const b = chunk[i] as number;
      if (b === 0x22) {
        quoted = !quoted;
        content = true;
      } else if (b === 0x0a && !quoted) {
        if (content) rows += 1;
        content = false;
      } else if (b !== 0x0d) {
        content = true;
      }
    }
  }
  return content ? rows + 1 : rows;
}

/** The rows of a CSV file in an encoding, as text cells (a row at most 1 MiB, as csv-parse counts it). */
export async function* csvRows(path: string, encoding: string, limits: ReadLimits): AsyncGenerator<string[]> {
  const file = fs.createReadStream(path, { highWaterMark: 256 * 1024 });
  const decoded = (/^utf-?8$/i.test(encoding) ? file : file.pipe(iconv.decodeStream(encoding))) as Readable;
  const parser = decoded.pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, relax_quotes: true, max_record_size: MAX_ROW_CHARS }),
  );
  const failed = (err: unknown) => parser.destroy(err as Error);
  file.on('error', failed);
  if (decoded !== file) decoded.on('error', failed);
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row += 1;
      checkRow(record, row, limits);
      yield record;
    }
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('CSV_'))
      throw new UnreadableFile(`The CSV cannot be read: ${err.message}`);
    throw err;
  } finally {
    file.destroy();
  }
}

/** A file's rows, the header first, each checked against the limits. */
export function fileRows(path: string, format: ImportFormat, encoding: string, limits: ReadLimits): AsyncGenerator<string[]> {
  return format === 'xlsx' ? xlsxRows(path, limits) : csvRows(path, encoding, limits);
}

/** A file's data rows (the header not counted), refused over IMPORT_MAX_ROWS before any is imported. */
export async function countDataRows(path: string, format: ImportFormat, encoding: string, limits: ReadLimits): Promise<number> {
  const rows = format === 'xlsx' ? await xlsxRowCount(path, limits) : await countCsvRows(path, encoding, limits);
  if (rows - 1 > limits.maxRows) throw tooManyRows(limits);
  return Math.max(0, rows - 1);
}

/**
 * The first `n` rows, the header included. A CSV's rows are read as far as they go (a preview's file
 * may be cut off: a row that cannot be read ends them); an XLSX workbook is checked whole first.
 */
export async function firstRows(path: string, format: ImportFormat, encoding: string, limits: ReadLimits, n: number): Promise<string[][]> {
  if (format === 'xlsx') return xlsxSample(path, limits, n);
  const out: string[][] = [];
  const rows = csvRows(path, encoding, limits);
  try {
    while (out.length < n) {
      const next = await rows.next();
      if (next.done) break;
      out.push(next.value);
    }
  } catch (err) {
    // The header must be read; a later row may be the cut-off end of a partial upload.
    if (!(err instanceof UnreadableFile) || out.length === 0) throw err;
  } finally {
    await rows.return(undefined);
  }
  return out;
}
