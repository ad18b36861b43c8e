// lanes: sqlite postgres
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOM, couldBeFormula, csvCell, csvLine, neutralized } from '../../../src/lib/csv.ts';
import { type ZipEntry, entryBytes, zipEntries } from '../../../src/modules/dataops/zip.ts';
import { uniquePhone } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;
const phones: Record<string, string> = {};

function rowsOf(body: string): string[][] {
  expect(body.startsWith(BOM)).toBe(true);
  return parse(body.slice(1), { relax_column_count: false }) as string[][];
}

async function exportCsv(token: string, query: Record<string, string> = {}) {
  return t.server.api.get(`/api/v1.7/app/${p.appId}/customers/export`, { token, query });
}

beforeAll(async () => {
  p = await historyProject(t.server);
  const add = async (who: { id: number; token: string }, name: string, fields: Record<string, string> = {}) => {
    phones[name] = uniquePhone();
    const res = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/member/${who.id}/customers`,
      { name, phone: phones[name], ...fields },
      { token: who.token },
    );
    expect(res.json().status).toBe(1);
  };
  await add(p.master, 'Export Master', { company: 'Comma, "Quoted" Co', title: '=1+2' });
  await add(p.sales, 'Export Sales', { company: '@SUM(A1)', address: 'Line one\nLine two' });
  await add(p.sales2, '导出客户', { company: '-minus' });
});

describe('customer export', () => {
  it('streams every customer the Master may see as CSV that Excel opens: BOM, quoting, formulas neutralized, phones kept', async () => {
    const res = await exportCsv(p.master.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="customers.csv"');
    const rows = rowsOf(res.body);
    const header = rows[0] as string[];
    expect(header.slice(0, 3)).toEqual(['id', '姓名', '手机']);
    const col = (title: string) => header.indexOf(title);
    const byName = new Map(rows.slice(1).map((r) => [r[col('姓名')], r]));
    expect([...byName.keys()].sort()).toEqual(['Export Master', 'Export Sales', '导出客户'].sort());
    const master = byName.get('Export Master') as string[];
    expect(master[col('公司名称')]).toBe('Comma, "Quoted" Co');
    expect(master[col('职位')]).toBe("'=1+2");
    expect(master[col('手机')]).toBe(phones['Export Master']);
    const sales = byName.get('Export Sales') as string[];
    expect(sales[col('公司名称')]).toBe("'@SUM(A1)");
    expect(sales[col('详细地址')]).toBe('Line one\nLine two');
    expect((byName.get('导出客户') as string[])[col('公司名称')]).toBe("'-minus");
  });

  it('gives a Sales member their own customers, applies the list filters, and writes XLSX', async () => {
    const own = rowsOf((await exportCsv(p.sales.token)).body);
    expect(own.slice(1).map((r) => r[1])).toEqual(['Export Sales']);
    const filtered = rowsOf((await exportCsv(p.admin.token, { keyword: '导出' })).body);
    expect(filtered.slice(1).map((r) => r[1])).toEqual(['导出客户']);

    const x = await exportCsv(p.master.token, { format: 'xlsx' });
    expect(x.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(x.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.rowCount).toBe(4);
    expect(sheet.getRow(1).getCell(2).value).toBe('姓名');
  });

  it("takes the list's owner filter: Master and Admin export one member's customers, a Sales member only their own", async () => {
    const names = async (token: string, query: Record<string, string>) =>
      rowsOf((await exportCsv(token, query)).body)
        .slice(1)
        .map((r) => r[1]);
    expect(await names(p.admin.token, { svc_user_id: String(p.sales2.id) })).toEqual(['导出客户']);
    expect(await names(p.master.token, { svc_user_id: String(p.sales.id), keyword: 'Export' })).toEqual(['Export Sales']);
    expect(await names(p.sales.token, { svc_user_id: String(p.sales.id) })).toEqual(['Export Sales']);
    expect((await exportCsv(p.sales.token, { svc_user_id: String(p.sales2.id) })).statusCode).toBe(403);
    expect((await exportCsv(p.master.token, { svc_user_id: 'x' })).json()).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it('refuses outsiders, and Sales members once the project switches Sales export off; Master and Admin still export', async () => {
    expect((await exportCsv(p.outsider.token)).statusCode).toBe(403);
    const off = await t.server.api.post(`/api/v1.7/app/${p.appId}`, { sales_export: 0 }, { token: p.master.token });
    expect(off.json().status).toBe(1);
    const refused = await exportCsv(p.sales.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'forbidden' });
    expect((await exportCsv(p.admin.token)).statusCode).toBe(200);
    await t.server.api.post(`/api/v1.7/app/${p.appId}`, { sales_export: 1 }, { token: p.master.token });
    expect((await exportCsv(p.sales.token)).statusCode).toBe(200);
  });

  it('neutralizes a formula after any separator in CSV and XLSX, and writes XLSX cells as strings, never formulas', async () => {
    const company = 'Acme;=HYPERLINK("http://evil","x")';
    const title = 'Boss\t@SUM(A1)';
    const res = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/member/${p.master.id}/customers`,
      { name: 'Separator Person', phone: uniquePhone(), company, title },
      { token: p.master.token },
    );
    expect(res.json().status).toBe(1);
    const body = (await exportCsv(p.master.token, { keyword: 'Separator' })).body;
    // Quoted as one cell, so a locale splitting on `;` or TAB still reads one; and shown as text.
    expect(body).toContain(`"'Acme;=HYPERLINK(""http://evil"",""x"")"`);
    expect(body).toContain(`"'Boss\t@SUM(A1)"`);
    const rows = rowsOf(body);
    const header = rows[0] as string[];
    expect((rows[1] as string[])[header.indexOf('公司名称')]).toBe(`'${company}`);

    const x = await exportCsv(p.master.token, { keyword: 'Separator', format: 'xlsx' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
    const file = path.join(dir, 'x.xlsx');
    fs.writeFileSync(file, x.rawPayload);
    const sheetEntry = (await zipEntries(file, 64 * 1024 * 1024)).get('xl/worksheets/sheet1.xml');
    expect(sheetEntry).toBeDefined();
    let sheetXml = '';
    for await (const chunk of entryBytes(file, sheetEntry as ZipEntry)) sheetXml += chunk.toString();
    fs.rmSync(dir, { recursive: true, force: true });
    expect(sheetXml).not.toMatch(/<f[\s>]/);
    const types = [...sheetXml.matchAll(/<c\b([^>]*)>/g)].map((m) => /\bt="(\w+)"/.exec(m[1] as string)?.[1]);
    expect(types.length).toBeGreaterThan(10);
    expect(new Set(types)).toEqual(new Set(['str']));
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(x.rawPayload as unknown as ArrayBuffer);
    const companyCell = (wb.worksheets[0] as ExcelJS.Worksheet).getRow(2).getCell(header.indexOf('公司名称') + 1);
    expect(companyCell.type).toBe(ExcelJS.ValueType.String);
    expect(companyCell.value).toBe(`'${company}`);
  });

  it('writes an audit log entry for each export', async () => {
    await exportCsv(p.admin.token, { keyword: 'Export', format: 'csv' });
    const log = await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token });
    const entry = (log.json().data as { action: string; svcUserId: string; detail: Record<string, unknown> }[]).find(
      (e) => e.action === 'customer.export',
    );
    expect(entry).toMatchObject({ svcUserId: String(p.admin.id), detail: { format: 'csv', keyword: 'Export', ownerId: null } });
  });
});

describe('CSV writer', () => {
  it('neutralizes every cell a spreadsheet in any locale could read as a formula, and quotes its separators', () => {
    // [cell, the CSV cell written]
    const table: [string, string][] = [
      ['=1+1', "'=1+1"],
      ['+1+1', "'+1+1"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\t=1', `"'\t=1"`],
      ['\r=1', `"'\r=1"`],
      [' =1', "' =1"],
      ['a;=1+1', `"'a;=1+1"`],
      ['a,=1+1', `"'a,=1+1"`],
      ['a\t=1+1', `"'a\t=1+1"`],
      ['a|=1+1', `"'a|=1+1"`],
      ['a，=1+1', `"'a，=1+1"`],
      ['a；+1+1', `"'a；+1+1"`],
      ['a; @x', `"'a; @x"`],
      ['a;"=1"', `"'a;""=1"""`],
      ["a;'=1", `"'a;'=1"`],
      ['＝1+1', "'＝1+1"],
      ['a\n=1', `"a\n=1"`],
      ['+8613800000000', '+8613800000000'],
      ['+8613800000000;+8613900000000', '"+8613800000000;+8613900000000"'],
      ['a;b', '"a;b"'],
      ['plain text', 'plain text'],
      ['e-mail a-b@example.com', 'e-mail a-b@example.com'],
      ['', ''],
    ];
    for (const [cell, written] of table) expect([cell, csvCell(cell)]).toEqual([cell, written]);
    expect(csvCell(null)).toBe('');
  });

  it('round-trips any text through a CSV parser, neutralized exactly where a piece could start a formula', () => {
    const cell = fc.oneof(
      fc.string(),
      fc.constantFrom('=A1', '+1', '+8613800000000', '-', '@x', '\tTab', '\rCR', ' pad ', 'a,b', 'say "hi"', 'a\nb', 'x;=1', 'y，@z'),
    );
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const text = rows.map((r) => csvLine(r)).join('');
        const parsed = parse(text, { relax_column_count: true }) as string[][];
        expect(parsed).toEqual(rows.map((r) => r.map(neutralized)));
        for (const r of rows) {
          for (const c of r) {
            // An independent statement of the rule: each piece split at a separator, past spaces and quotes.
            const pieces = c.split(/[,;\t|，；]/).map((piece) => piece.replace(/^[\s"']*/, ''));
            const risky =
              /^[\t\r]/.test(c) || pieces.some((piece) => /^[=+\-@\t\r＝＋－＠]/.test(piece) && !/^\+\d{1,20}$/.test(piece.trimEnd()));
            expect(couldBeFormula(c)).toBe(risky);
            expect(neutralized(c)).toBe(risky ? `'${c}` : c);
          }
        }
      }),
    );
  });
});
