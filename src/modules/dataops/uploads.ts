import { badRequest, failure } from '../../http/errors.ts';
import type { ImportsConfig } from '../../config.ts';
import type { ReadLimits } from './limits.ts';
import { UnreadableFile, detectEncoding, firstRows, formatOf, isKnownEncoding } from './reader.ts';

/** A file an upload brought (src/http/upload.ts gives this shape). */
export interface IncomingFile {
  path: string;
  filename: string;
  size: number;
  tooLarge: boolean;
}

/** What a caller sends with an import besides the file. */
export interface ImportRequest {
  /** JSON object: header (or column number) → attribute name, "" to ignore the column. */
  mapping?: string | undefined;
  group_id?: string | undefined;
  /** The owner of rows that name none (default: the acting member). */
  svc_user_id?: number | undefined;
  duplicate_policy?: string | undefined;
  dry_run?: string | boolean | undefined;
  encoding?: string | undefined;
}

/** An upload's format, encoding, header and first data rows. */
export interface FileHead {
  format: 'csv' | 'xlsx';
  encoding: string;
  header: string[];
  rows: string[][];
}

export const invalidFile = (detail: string) => failure('import_file_invalid', detail);

/** What an import's reader may read of a file (IMPORT_MAX_ROWS and the XLSX bounds). */
export function readLimitsOf(limits: ImportsConfig): ReadLimits {
  return { maxRows: limits.maxRows, maxUncompressedBytes: limits.xlsxMaxUncompressedBytes, maxSharedStrings: limits.xlsxMaxSharedStrings };
}

/** Refuses an encoding no reader knows. */
export function checkEncoding(encoding: string | undefined): void {
  if (encoding !== undefined && encoding !== '' && !isKnownEncoding(encoding)) {
    throw badRequest(`Invalid parameter 'encoding': unknown encoding ${encoding}`);
  }
}

/** Refuses a missing upload, or one cut off for being larger than IMPORT_MAX_BYTES. */
export function presentFile(incoming: IncomingFile | undefined, limits: ImportsConfig): IncomingFile {
  if (!incoming) throw invalidFile("No file: send it as multipart/form-data in the field 'file'");
  if (incoming.tooLarge) throw invalidFile(`The file is larger than ${limits.maxBytes} bytes`);
  return incoming;
}

/**
 * An upload's format, encoding (a CSV's: the given one, else detected), header and up to `n` data
 * rows (reading them also proves the file opens, and that a workbook is within its limits); a file
 * that cannot be read is `import_file_invalid`.
 */
export async function headOf(
  incoming: IncomingFile,
  limits: ImportsConfig,
  read: { encoding: string | undefined; rows: number },
): Promise<FileHead> {
  try {
    const format = await formatOf(incoming.path, incoming.filename);
    if (format === 'xlsx' && incoming.size > limits.xlsxMaxBytes) {
      throw new UnreadableFile(`An XLSX workbook may be at most ${limits.xlsxMaxBytes} bytes; save larger files as CSV`);
    }
    const encoding = format === 'csv' ? read.encoding || (await detectEncoding(incoming.path)) : 'utf8';
    const [first, ...rows] = await firstRows(incoming.path, format, encoding, readLimitsOf(limits), read.rows + 1);
    if (!first || first.every((c) => c.trim() === '')) throw new UnreadableFile('The file has no header row');
    return { format, encoding, header: first.map((c) => c.trim()), rows };
  } catch (err) {
    if (err instanceof UnreadableFile) throw invalidFile(err.message);
    throw err;
  }
}
