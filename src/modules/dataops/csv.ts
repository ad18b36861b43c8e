/**
 * The CSV that exports and problems.csv write (RFC 4180, for spreadsheets): a UTF-8 byte order
 * mark so Excel reads UTF-8, CRLF line ends, a cell quoted when it holds a comma, a quote, a line
 * break or leading/trailing space, quotes doubled. A cell a spreadsheet would take for a formula
 * (starting with `=`, `+`, `-`, `@`, TAB or CR) gets a leading `'`, except a mobile number (`+`
 * and digits), which stays as it is.
 */
export const BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;
const PHONE = /^\+\d{1,20}$/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** The text a cell shows, safe from formula injection. */
export function neutralized(value: string): string {
  return FORMULA_START.test(value) && !PHONE.test(value) ? `'${value}` : value;
}

/** One cell of a CSV line: null and undefined are empty. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = neutralized(String(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line, with its CRLF. */
export function csvLine(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
