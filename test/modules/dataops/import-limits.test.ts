// lanes: sqlite postgres
/**
 * The import readers' limits and the XLSX reader's reading, through the preview, the import and the
 * CLI (docs/data-operations.md "Files", docs/operations.md "Limits"), with small limits set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniquePhone } from '../../helpers/fixtures.ts';
import { multipart } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { runCli } from '../../helpers/process.ts';
import { manySharedStrings, sheetXml, workbook, zipArchive } from '../../helpers/zip.ts';

const t = useTestServer({ IMPORT_MAX_ROWS: '5', IMPORT_XLSX_MAX_STRINGS: '100', IMPORT_XLSX_MAX_INFLATED: String(1024 * 1024) });
let p: HistoryProject;

interface Job {
  id: string;
  status: string;
  total: number;
  created: number;
  failed: number;
  error: string | null;
}

const base = () => `/api/v1.7/app/${p.appId}/member/${p.master.id}`;

async function post(url: string, filename: string, bytes: Buffer, fields: Record<string, string> = {}) {
  const body = multipart({ filename, bytes }, fields);
  return (await t.server.api.post(url, body.payload, { token: p.master.token, headers: { 'content-type': body.contentType } })).json();
}
const preview = (filename: string, bytes: Buffer) => post(`/api/v1.7/app/${p.appId}/customer-import/preview`, filename, bytes);
const startImport = (filename: string, bytes: Buffer) => post(`${base()}/customer-imports`, filename, bytes);

async function settled(id: string): Promise<Job> {
  for (let i = 0; i < 400; i += 1) {
    const job = (await t.server.api.get(`${base()}/customer-import/${id}`, { token: p.master.token })).json().data as Job;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not settle');
}

async function customersOf(keyword: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/all/customers`, {
    token: p.master.token,
    query: { keyword, count: 100 },
  });
  return res.json().data as Record<string, unknown>[];
}

const SST = (strings: string[]) =>
  `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${strings.map((s) => `<si>${s}</si>`).join('')}</sst>`;

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('XLSX reader', () => {
  it('reads shared strings (rich runs, no phonetic text), inline strings, numbers and gaps, in the workbook own first sheet', async () => {
    const phone = uniquePhone();
    const strings = SST([
      '<t>name</t>',
      '<t>phone</t>',
      '<r><t>Rich </t></r><r><rPr><b/></rPr><t>Person</t></r><rPh><t>ふりがな</t></rPh>',
      '<t xml:space="preserve">A &amp; B &lt;Co&gt; &#x4E2D;</t>',
      '<t>company</t>',
      '<t></t>',
    ]);
    const sheet =
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="s"><v>4</v></c></row>' +
      '<row r="2"><c r="A2" t="s"><v>5</v></c></row>' +
      `<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3"><v>${phone}</v></c><c r="D3" t="s"><v>3</v></c></row>` +
      '<row r="4"><c r="A4" t="inlineStr"><is><t>Inline &quot;Two&quot;</t></is></c><c r="B4" t="str"><f>A1</f><v>not-a-phone</v></c></row>' +
      '</sheetData></worksheet>';
    const book = workbook({ sheet, sharedStrings: strings });
    const seen = await preview('book.xlsx', book);
    expect(seen).toMatchObject({
      status: 1,
      data: {
        format: 'xlsx',
        mapping: [
          { column: 'name', attribute: 'name' },
          { column: 'phone', attribute: 'phone' },
          { column: '', attribute: '' },
          { column: 'company', attribute: 'company' },
        ],
        rows: [
          ['Rich Person', phone, '', 'A & B <Co> 中'],
          ['Inline "Two"', 'not-a-phone'],
        ],
      },
    });
    const started = await startImport('book.xlsx', book);
    const job = await settled(started.data.id as string);
    expect(job).toMatchObject({ status: 'done', total: 2, created: 1, failed: 1 });
    expect(await customersOf(phone)).toMatchObject([{ name: 'Rich Person', company: 'A & B <Co> 中' }]);
  });
});

describe('import limits', () => {
  it('refuses a workbook past the shared-string, inflated-size or column limits, and XML with a DOCTYPE, at the preview and the import', async () => {
    const sheet = sheetXml([['name'], ['x']]);
    const cases: [Buffer, string][] = [
      [workbook({ sheet, sharedStrings: manySharedStrings(101) }), 'more than 100 shared strings (IMPORT_XLSX_MAX_STRINGS)'],
      [workbook({ sheet, sharedStrings: manySharedStrings(500, true) }), 'more than 100 shared strings'],
      [workbook({ sheet: sheet + ' '.repeat(1024 * 1024) }), 'IMPORT_XLSX_MAX_INFLATED'],
      [workbook({ sheet: sheet + ' '.repeat(200_000), declared: { 'xl/worksheets/sheet1.xml': sheet.length } }), 'inflates beyond'],
      [
        workbook({
          sheet: '<worksheet><sheetData><row r="1"><c r="ALM1" t="inlineStr"><is><t>name</t></is></c></row></sheetData></worksheet>',
        }),
        'beyond column 1,000',
      ],
      [workbook({ sheet: sheetXml([['name', 'x'.repeat(32_768)]]) }), 'longer than 32,767 characters'],
      [workbook({ sheet: `<!DOCTYPE x [<!ENTITY a "aaaa">]>${sheet}` }), 'DOCTYPE'],
      [zipArchive([{ name: 'xl/workbook.xml', data: '<workbook><sheets/></workbook>' }]), 'no worksheet'],
    ];
    for (const [bytes, message] of cases) {
      for (const answer of [await preview('x.xlsx', bytes), await startImport('x.xlsx', bytes)]) {
        expect(answer).toMatchObject({ status: 0, code: 'import_file_invalid' });
        expect(answer.msg).toContain(message);
      }
    }
  });

  it('refuses a CSV header past the column or cell limit, and fails an import over IMPORT_MAX_ROWS before writing a row', async () => {
    const wide = Buffer.from(`name,${Array.from({ length: 1000 }, (_, i) => `c${i}`).join(',')}\r\nA\r\n`);
    expect(await startImport('wide.csv', wide)).toMatchObject({
      status: 0,
      code: 'import_file_invalid',
      msg: expect.stringContaining('more than 1,000 columns'),
    });
    const long = Buffer.from(`name,${'y'.repeat(40_000)}\r\nA\r\n`);
    expect(await preview('long.csv', long)).toMatchObject({
      status: 0,
      code: 'import_file_invalid',
      msg: expect.stringContaining('32,767'),
    });

    const tag = `Rows${uniquePhone()}`;
    const lines = ['name,phone', ...Array.from({ length: 6 }, (_, i) => `${tag} ${i},${uniquePhone()}`)];
    for (const [name, bytes] of [
      ['rows.csv', Buffer.from(`${lines.join('\r\n')}\r\n`)],
      ['rows.xlsx', workbook({ sheet: sheetXml(lines.map((l) => l.split(','))) })],
    ] as [string, Buffer][]) {
      const started = await startImport(name, bytes);
      expect(started.status).toBe(1);
      const job = await settled(started.data.id as string);
      expect(job).toMatchObject({ status: 'failed', created: 0 });
      expect(job.error).toContain('more than 5 data rows (IMPORT_MAX_ROWS)');
      expect(await customersOf(tag)).toEqual([]);
    }
    // Five rows are within the limit.
    const five = await startImport('five.csv', Buffer.from(`${lines.slice(0, 6).join('\r\n')}\r\n`));
    expect(await settled(five.data.id as string)).toMatchObject({ status: 'done', created: 5 });
  });

  it('refuses a hostile workbook in the CLI import as the endpoint does', async () => {
    const config = t.server.ctx.config;
    const env = {
      DATA_DIR: config.dataDir,
      IMPORT_XLSX_MAX_STRINGS: '100',
      ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}),
    };
    const file = path.join(config.dataDir, 'cli-hostile.xlsx');
    fs.writeFileSync(file, workbook({ sheet: sheetXml([['name']]), sharedStrings: manySharedStrings(10_000) }));
    const run = runCli(['import', 'customers', file, '--app', p.appId, '--owner', String(p.master.id)], env);
    expect(await run.exited).not.toBe(0);
    expect(run.output()).toContain('more than 100 shared strings');
  });
});
