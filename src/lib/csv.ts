/**
 * The CSV that exports and problems.csv write (RFC 4180, for spreadsheets): a UTF-8 byte order
 * mark so Excel reads UTF-8, CRLF line ends, quotes doubled. Formula injection (OWASP's CSV
 * injection guidance) is met twice over, whatever the reader's locale:
 *
 * - a cell is quoted when it holds a quote, a line break, leading/trailing space, or any character a
 *   spreadsheet may split cells on (`,` `;` TAB `|` and the full-width `，` `；`): a locale whose list
 *   separator is `;` then still reads it as one cell;
 * - a cell gets a leading `'` (shown as text) when it, or any piece of it after one of those
 *   separators, starts (past spaces and quotes) with `=`, `+`, `-`, `@`, TAB, CR or their full-width
 *   forms. A piece that is a mobile number (`+` and digits) is not a formula, so `+8613800000000`
 *   stays as it is.
 */
export const BOM = '\uFEFF';

const SEPARATORS = /[,;\t|\uFF0C\uFF1B]/;
const PIECE_START = /^[\s"']*/;
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const PHONE = /^\+\d{1,20}$/;
const NEEDS_QUOTES = /[",;\t|\uFF0C\uFF1B\r\n]|^\s|\s$/;

function startsFormula(piece: string): boolean {
  const rest = piece.slice((PIECE_START.exec(piece) as RegExpExecArray)[0].length);
  return FORMULA_START.test(rest) && !PHONE.test(rest.trimEnd());
}

/** Whether a spreadsheet could read `value`, or a piece of it split off at a separator, as a formula. */
export function couldBeFormula(value: string): boolean {
  // A leading TAB or CR is a formula start itself (OWASP), before any space is skipped.
  if (/^[\t\r]/.test(value)) return true;
  if (!SEPARATORS.test(value)) return startsFormula(value);
  return value.split(SEPARATORS).some(startsFormula);
}

/** The text a cell shows, safe from formula injection. */
export function neutralized(value: string): string {
  return couldBeFormula(value) ? `'${value}` : value;
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

/** CSV text of rows: the BOM, then each line, handed on in pieces of about 64 KiB. */
export async function* csvText(rows: AsyncIterable<readonly (string | number | boolean | null | undefined)[]>): AsyncGenerator<string> {
  yield BOM;
  let buffered = '';
  for await (const cells of rows) {
    buffered += csvLine(cells);
    if (buffered.length >= 64 * 1024) {
      yield buffered;
      buffered = '';
    }
  }
  if (buffered !== '') yield buffered;
}
