/**
 * What an import's file may hold (docs/operations.md "Limits", docs/data-operations.md). Each bound
 * keeps one reader's memory small whatever the file says about itself; a file past one is refused
 * with a message naming it. The ones an operator may want to raise are settings (src/config.ts).
 */
export class UnreadableFile extends Error {}

export interface ReadLimits {
  /** Data rows (the header not counted): IMPORT_MAX_ROWS. */
  maxRows: number;
  /** Inflated bytes of an XLSX workbook's entries, together: IMPORT_XLSX_MAX_INFLATED. */
  maxUncompressedBytes: number;
  /** Shared strings of an XLSX workbook: IMPORT_XLSX_MAX_STRINGS. */
  maxSharedStrings: number;
}

/** Columns of a row: far beyond any customer's attributes, and a bound on a row's cells however sparse. */
export const MAX_COLUMNS = 1000;
/** Characters of one cell: what a spreadsheet itself holds in a cell. */
export const MAX_CELL_CHARS = 32_767;
/** Characters of one row, all its cells together. */
export const MAX_ROW_CHARS = 1024 * 1024;
/** UTF-8 bytes of an XLSX workbook's shared strings, together (they are held while its rows are read). */
export const MAX_SHARED_STRING_BYTES = 64 * 1024 * 1024;

const n = (v: number) => v.toLocaleString('en-US');

/** Checks one row's shape against the limits; `row` counts from 1 (the header). */
export function checkRow(cells: readonly string[], row: number, limits: ReadLimits): void {
  if (row - 1 > limits.maxRows) throw tooManyRows(limits);
  if (cells.length > MAX_COLUMNS) throw new UnreadableFile(`Row ${row} has more than ${n(MAX_COLUMNS)} columns`);
  for (const cell of cells) {
    if (cell.length > MAX_CELL_CHARS) throw tooLongCell(row);
  }
}

export const tooLongCell = (row: number) => new UnreadableFile(`Row ${row} has a cell longer than ${n(MAX_CELL_CHARS)} characters`);

export const tooManyRows = (limits: ReadLimits) =>
  new UnreadableFile(`The file has more than ${n(limits.maxRows)} data rows (IMPORT_MAX_ROWS)`);
