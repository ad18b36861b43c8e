import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { csvText, neutralized } from '../../lib/csv.ts';

export type ExportFormat = 'csv' | 'xlsx';

/** An XLSX workbook of rows, streamed (each row committed as it is written; no shared strings). */
function xlsxStream(rows: AsyncIterable<string[]>, sheetName: string): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName);
  void (async () => {
    try {
      for await (const cells of rows) sheet.addRow(cells.map(neutralized)).commit();
      sheet.commit();
      await workbook.commit();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}

/** Rows as a CSV or XLSX file, streamed as they come. */
export function encode(rows: AsyncIterable<string[]>, format: ExportFormat, sheetName: string): Readable {
  return format === 'xlsx' ? xlsxStream(rows, sheetName) : Readable.from(csvText(rows));
}
