// lanes: sqlite postgres
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { mapColumns, normalizedLabel } from '../../../src/modules/dataops/mapping.ts';
import { createServices } from '../../../src/services.ts';
import { uniquePhone } from '../../helpers/fixtures.ts';
import { multipart } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { runCli } from '../../helpers/process.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

const t = useTestServer({ IMPORT_LEASE_SECONDS: '1', IMPORT_XLSX_MAX_BYTES: '200000' });
let p: HistoryProject;

interface Job {
  id: string;
  status: string;
  total: number;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  error: string | null;
  mapping: { column: string; attribute: string }[];
}

const base = (member: number) => `/api/v1.7/app/${p.appId}/member/${member}`;

async function startImport(token: string, member: number, filename: string, bytes: Buffer, fields: Record<string, string> = {}) {
  const body = multipart({ filename, bytes }, fields);
  return t.server.api.post(`${base(member)}/customer-imports`, body.payload, { token, headers: { 'content-type': body.contentType } });
}

async function settled(token: string, member: number, id: string): Promise<Job> {
  for (let i = 0; i < 600; i += 1) {
    const res = await t.server.api.get(`${base(member)}/customer-import/${id}`, { token });
    const job = res.json().data as Job;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not settle');
}

async function runImport(
  token: string,
  member: number,
  filename: string,
  bytes: Buffer,
  fields: Record<string, string> = {},
): Promise<Job> {
  const res = await startImport(token, member, filename, bytes, fields);
  expect(res.json()).toMatchObject({ status: 1 });
  return settled(token, member, (res.json().data as Job).id);
}

async function customersOf(token: string, keyword: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/all/customers`, { token, query: { keyword, count: 100 } });
  return res.json().data as Record<string, unknown>[];
}

function csv(lines: string[]): Buffer {
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('customer import', () => {
  it('maps columns from names and titles in both languages, creates with createWay 7, and reports invalid rows in problems.csv', async () => {
    const phone1 = uniquePhone();
    const phone2 = uniquePhone();
    const job = await runImport(
      p.master.token,
      p.master.id,
      'people.csv',
      csv([
        'Name,手机,E-mail,公司,Notes',
        `Alpha Import,${phone1},alpha@example.com,"Acme, Inc.",x`,
        `Beta Import,${phone2},beta@example.com,Beta Co,y`,
        `,${uniquePhone()},nameless@example.com,Nameless,z`,
        `Gamma Import,not-a-phone,gamma@example.com,"=HYPERLINK(""http://evil"")",w`,
      ]),
    );
    expect(job).toMatchObject({ status: 'done', total: 4, processed: 4, created: 2, updated: 0, skipped: 0, failed: 2 });
    expect(job.mapping).toEqual([
      { column: 'Name', attribute: 'name' },
      { column: '手机', attribute: 'phone' },
      { column: 'E-mail', attribute: 'email' },
      { column: '公司', attribute: 'company' },
      { column: 'Notes', attribute: '' },
    ]);
    const [alpha] = await customersOf(p.master.token, phone1);
    expect(alpha).toMatchObject({
      name: 'Alpha Import',
      company: 'Acme, Inc.',
      email: 'alpha@example.com',
      createWay: 7,
      svcUserId: String(p.master.id),
    });

    const problems = await t.server.api.get(`${base(p.master.id)}/customer-import/${job.id}/problems.csv`, { token: p.master.token });
    expect(problems.statusCode).toBe(200);
    expect(problems.headers['content-type']).toContain('text/csv');
    const text = problems.body;
    expect(text.startsWith('\uFEFF')).toBe(true);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Name,手机,E-mail,公司,Notes,reason');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('name_required');
    // The formula in a cell is neutralized in problems.csv.
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[2]).toContain('phone_invalid');
  });

  it('writes nothing in a dry run, and counts as a real run would', async () => {
    const phone = uniquePhone();
    const job = await runImport(p.master.token, p.master.id, 'dry.csv', csv(['name,phone', `Dry Run,${phone}`, 'Dry Two,bad']), {
      dry_run: 'true',
    });
    expect(job).toMatchObject({ status: 'done', total: 2, created: 1, failed: 1 });
    expect(await customersOf(p.master.token, phone)).toEqual([]);
  });

  it('skips, updates or merges rows whose mobile number names a live customer, and duplicates within the file', async () => {
    const phone = uniquePhone();
    const created = await t.server.api.post(
      `${base(p.master.id)}/customers`,
      { name: 'Dup Original', phone, company: 'Old Co' },
      { token: p.master.token },
    );
    expect(created.json().status).toBe(1);
    const id = created.json().data.id as string;
    const file = (name: string, title: string, company: string) =>
      csv(['name,phone,title,company', `${name},${phone},${title},${company}`]);

    const skipped = await runImport(p.master.token, p.master.id, 'a.csv', file('Dup Skip', 'CEO', 'New Co'), { duplicate_policy: 'skip' });
    expect(skipped).toMatchObject({ created: 0, updated: 0, skipped: 1, failed: 0 });

    const merged = await runImport(p.master.token, p.master.id, 'b.csv', file('Dup Merge', 'CTO', 'Merge Co'), {
      duplicate_policy: 'merge',
    });
    expect(merged).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    let detail = (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: p.master.token })).json().data;
    // merge fills only blank attributes: the title was blank, the name and company were not.
    expect(detail).toMatchObject({ name: 'Dup Original', company: 'Old Co', title: 'CTO', createWay: 6 });

    const updated = await runImport(p.master.token, p.master.id, 'c.csv', file('Dup Update', 'COO', 'Update Co'), {
      duplicate_policy: 'update',
    });
    expect(updated).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    detail = (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: p.master.token })).json().data;
    expect(detail).toMatchObject({ name: 'Dup Update', company: 'Update Co', title: 'COO', createWay: 6 });

    // Two rows of one file with the same new mobile number: one customer.
    const twin = uniquePhone();
    const inFile = await runImport(p.master.token, p.master.id, 'd.csv', csv(['name,phone', `Twin A,${twin}`, `Twin B,${twin}`]), {
      duplicate_policy: 'skip',
    });
    expect(inFile).toMatchObject({ created: 1, skipped: 1 });
    expect((await customersOf(p.master.token, twin)).map((c) => c.name)).toEqual(['Twin A']);
    const twin2 = uniquePhone();
    const folded = await runImport(
      p.master.token,
      p.master.id,
      'e.csv',
      csv(['name,phone,title', `Twin C,${twin2},`, `Twin D,${twin2},Boss`]),
      {
        duplicate_policy: 'update',
      },
    );
    expect(folded).toMatchObject({ created: 1, updated: 1 });
    expect(await customersOf(p.master.token, twin2)).toMatchObject([{ name: 'Twin D', title: 'Boss' }]);
  });

  it('reads GBK and UTF-16 files, and XLSX workbooks', async () => {
    const phone = uniquePhone();
    const gbk = iconv.encode(`姓名,手机,公司\r\n张三导入,${phone},北京公司\r\n`, 'gbk');
    const job = await runImport(p.master.token, p.master.id, 'gbk.csv', gbk);
    expect(job).toMatchObject({ status: 'done', created: 1, failed: 0 });
    expect(await customersOf(p.master.token, phone)).toMatchObject([{ name: '张三导入', company: '北京公司' }]);

    const phone16 = uniquePhone();
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`name,phone\r\nUTF16 Person,${phone16}\r\n`, 'utf16le')]);
    expect(await runImport(p.master.token, p.master.id, 'u16.csv', utf16)).toMatchObject({ created: 1 });

    const phoneX = uniquePhone();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow(['姓名', '手机', 'Company']);
    ws.addRow(['Excel Person', phoneX, 'Sheet Co']);
    ws.addRow(['', '', '']);
    const xlsx = Buffer.from(await wb.xlsx.writeBuffer());
    const xjob = await runImport(p.master.token, p.master.id, 'people.xlsx', xlsx);
    expect(xjob).toMatchObject({ status: 'done', total: 1, created: 1 });
    expect(await customersOf(p.master.token, phoneX)).toMatchObject([{ name: 'Excel Person', company: 'Sheet Co' }]);
  });

  it('refuses bad files: binary, a broken XLSX, an XLSX over its cap, no mapped column, and a 2 GB body by its Content-Length', async () => {
    const binary = await startImport(p.master.token, p.master.id, 'x.csv', Buffer.from([0x00, 0x01, 0x02, 0x00, 0x41]));
    expect(binary.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
    const broken = await startImport(
      p.master.token,
      p.master.id,
      'x.xlsx',
      Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100, 7)]),
    );
    expect(broken.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
    const notXlsx = await startImport(p.master.token, p.master.id, 'x.xlsx', Buffer.from('name\nA\n'));
    expect(notXlsx.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
    const big = await startImport(
      p.master.token,
      p.master.id,
      'big.xlsx',
      Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(300_000)]),
    );
    expect(big.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
    expect(big.json().msg).toContain('at most');
    const unmapped = await startImport(p.master.token, p.master.id, 'x.csv', csv(['foo,bar', '1,2']));
    expect(unmapped.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
    const badPolicy = await startImport(p.master.token, p.master.id, 'x.csv', csv(['name', 'A']), { duplicate_policy: 'overwrite' });
    expect(badPolicy.json()).toMatchObject({ status: 0, code: 'Bad Request' });

    const huge = await t.server.api.post(`${base(p.master.id)}/customer-imports`, Buffer.from('--x--\r\n'), {
      token: p.master.token,
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(2 * 1024 * 1024 * 1024) },
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
  });

  it('lets a Sales member import only for themselves, and see only their own imports', async () => {
    const phone = uniquePhone();
    const own = await runImport(
      p.sales.token,
      p.sales.id,
      'mine.csv',
      csv(['name,phone,svcUserId', `Sales Own,${phone},`, `Not Mine,${uniquePhone()},${p.sales2.id}`]),
    );
    expect(own).toMatchObject({ created: 1, failed: 1 });
    expect(await customersOf(p.master.token, phone)).toMatchObject([{ svcUserId: String(p.sales.id) }]);
    const forOther = await startImport(p.sales.token, p.sales2.id, 'x.csv', csv(['name', 'A']));
    expect(forOther.statusCode).toBe(403);
    const peek = await t.server.api.get(`${base(p.sales2.id)}/customer-import/${own.id}`, { token: p.sales2.token });
    expect(peek.json()).toMatchObject({ status: 0, code: 'import_not_found' });
    const outsider = await startImport(p.outsider.token, p.outsider.id, 'x.csv', csv(['name', 'A']));
    expect(outsider.statusCode).toBe(403);
  });

  it("never matches a Sales member's row to a colleague's customer: each policy and a dry run answer as for an unused address, as create does", async () => {
    const detailOf = async (id: string) =>
      (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: p.master.token })).json().data;
    const ownedBySales = async (email: string) =>
      (
        await t.server.api.get(`/api/v1.7/app/${p.appId}/member/all/customers`, { token: p.sales.token, query: { email, count: 100 } })
      ).json().data as { svcUserId: string }[];
    const summary = (job: Job) => ({
      status: job.status,
      total: job.total,
      created: job.created,
      updated: job.updated,
      skipped: job.skipped,
      failed: job.failed,
    });
    const attempt = async (email: string, phone: string, fields: Record<string, string>) => {
      const file = csv(['name,email,phone,company', `Taken Over,${email},${phone},Sales Co`, 'Bad Row,,not-a-phone,Sales Co']);
      const job = await runImport(p.sales.token, p.sales.id, 'x.csv', file, fields);
      const problems = (await t.server.api.get(`${base(p.sales.id)}/customer-import/${job.id}/problems.csv`, { token: p.sales.token }))
        .body;
      return { summary: summary(job), problems };
    };
    let lastEmail = '';
    const runs: Record<string, string>[] = [
      { duplicate_policy: 'skip' },
      { duplicate_policy: 'update' },
      { duplicate_policy: 'merge' },
      { duplicate_policy: 'update', dry_run: 'true' },
    ];
    for (const fields of runs) {
      const theirPhone = uniquePhone();
      const theirEmail = `colleague-${theirPhone}@example.com`;
      lastEmail = theirEmail;
      const theirs = await t.server.api.post(
        `${base(p.sales2.id)}/customers`,
        { name: 'Colleague Customer', phone: theirPhone, email: theirEmail, company: 'Their Co' },
        { token: p.sales2.token },
      );
      const theirId = theirs.json().data.id as string;
      const before = await detailOf(theirId);
      // The colleague's e-mail, then their mobile number, against an address nobody uses.
      const unused = uniquePhone();
      const byEmail = await attempt(theirEmail, uniquePhone(), fields);
      const byPhone = await attempt(`other-${theirPhone}@example.com`, theirPhone, fields);
      const byNobody = await attempt(`nobody-${unused}@example.com`, unused, fields);
      expect(byEmail).toEqual(byNobody);
      expect(byPhone).toEqual(byNobody);
      expect(byNobody.summary).toMatchObject({ status: 'done', total: 2, created: 1, updated: 0, skipped: 0, failed: 1 });
      expect(await detailOf(theirId)).toEqual(before);
      expect(before).toMatchObject({ name: 'Colleague Customer', company: 'Their Co', svcUserId: String(p.sales2.id) });
      // What create does with the same e-mail: a customer of the importer's own (a dry run makes none).
      const mine = await ownedBySales(theirEmail);
      expect(mine.map((c) => c.svcUserId)).toEqual(fields.dry_run ? [] : [String(p.sales.id)]);
    }
    const created = await t.server.api.post(
      `${base(p.sales.id)}/customers`,
      { name: 'By Create', email: lastEmail },
      { token: p.sales.token },
    );
    expect(created.json()).toMatchObject({ status: 1, data: { svcUserId: String(p.sales.id) } });

    // An Admin reads every customer: their import still updates and reassigns it.
    const adminPhone = uniquePhone();
    await t.server.api.post(`${base(p.sales2.id)}/customers`, { name: 'Admin Target', phone: adminPhone }, { token: p.sales2.token });
    const admin = await runImport(p.admin.token, p.admin.id, 'a.csv', csv(['name,phone', `Admin Update,${adminPhone}`]), {
      duplicate_policy: 'update',
    });
    expect(admin).toMatchObject({ created: 0, updated: 1 });
    expect(await customersOf(p.master.token, adminPhone)).toMatchObject([{ name: 'Admin Update', svcUserId: String(p.admin.id) }]);
  });

  it("lists a member's imports newest first, to the member and Master only", async () => {
    const first = await runImport(p.sales2.token, p.sales2.id, 'first.csv', csv(['name,phone', `List One,${uniquePhone()}`]));
    const second = await runImport(p.sales2.token, p.sales2.id, 'second.csv', csv(['name,phone', `List Two,${uniquePhone()}`]), {
      dry_run: 'true',
    });
    const own = await t.server.api.get(`${base(p.sales2.id)}/customer-imports`, { token: p.sales2.token });
    expect(own.statusCode).toBe(200);
    const jobs = own.json().data as (Job & { fileName: string; dryRun: boolean })[];
    expect(jobs.slice(0, 2)).toMatchObject([
      { id: second.id, fileName: 'second.csv', dryRun: true, status: 'done', created: 1 },
      { id: first.id, fileName: 'first.csv', dryRun: false, status: 'done', created: 1 },
    ]);
    const one = await t.server.api.get(`${base(p.sales2.id)}/customer-imports`, { token: p.sales2.token, query: { count: 1 } });
    expect((one.json().data as Job[]).map((j) => j.id)).toEqual([second.id]);
    const byMaster = await t.server.api.get(`${base(p.sales2.id)}/customer-imports`, { token: p.master.token });
    expect((byMaster.json().data as Job[]).map((j) => j.id)).toContain(first.id);
    // Another Sales member sees none of them, and a member's list holds only what they started.
    const other = await t.server.api.get(`${base(p.sales2.id)}/customer-imports`, { token: p.sales.token });
    expect(other.statusCode).toBe(403);
    const mine = await t.server.api.get(`${base(p.sales.id)}/customer-imports`, { token: p.sales.token });
    expect((mine.json().data as Job[]).map((j) => j.id)).not.toContain(first.id);
    const bad = await t.server.api.get(`${base(p.sales2.id)}/customer-imports`, { token: p.sales2.token, query: { count: 0 } });
    expect(bad.json()).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it("previews a file: its header with the import's own mapping and first rows, from a CSV's first bytes, nothing kept", async () => {
    const preview = async (token: string, filename: string, bytes: Buffer, fields: Record<string, string> = {}) => {
      const body = multipart({ filename, bytes }, fields);
      return t.server.api.post(`/api/v1.7/app/${p.appId}/customer-import/preview`, body.payload, {
        token,
        headers: { 'content-type': body.contentType },
      });
    };
    const rows = Array.from({ length: 3000 }, (_, i) => `"Person ${i}",1390000${String(i).padStart(4, '0')},p${i}@example.com,x`);
    const whole = csv(['姓名*,Mobile,E-mail,Notes', ...rows]);
    // The first 64 KiB only: the last line is cut off; the answer is what the whole file gives.
    const res = await preview(p.sales.token, 'people.csv', whole.subarray(0, 64 * 1024));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      format: 'csv',
      encoding: 'utf8',
      mapping: [
        { column: '姓名*', attribute: 'name' },
        { column: 'Mobile', attribute: 'phone' },
        { column: 'E-mail', attribute: 'email' },
        { column: 'Notes', attribute: '' },
      ],
      rows: [
        ['Person 0', '13900000000', 'p0@example.com', 'x'],
        ['Person 1', '13900000001', 'p1@example.com', 'x'],
        ['Person 2', '13900000002', 'p2@example.com', 'x'],
      ],
    });
    const gbk = await preview(p.sales.token, 'gbk.csv', iconv.encode('公司,手机号\r\n测试公司,13900000000\r\n', 'gbk'));
    expect(gbk.json().data).toMatchObject({
      encoding: 'gb18030',
      mapping: [
        { column: '公司', attribute: 'company' },
        { column: '手机号', attribute: 'phone' },
      ],
      rows: [['测试公司', '13900000000']],
    });
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('s');
    sheet.addRow(['Company', 'Unknown']);
    sheet.addRow(['Acme', 'z']);
    const xlsx = await preview(p.master.token, 'book.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    expect(xlsx.json().data).toMatchObject({
      format: 'xlsx',
      mapping: [
        { column: 'Company', attribute: 'company' },
        { column: 'Unknown', attribute: '' },
      ],
      rows: [['Acme', 'z']],
    });
    // A file of no known column is previewed (the caller maps it); unreadable ones are refused as an import refuses them.
    const unmapped = await preview(p.sales.token, 'x.csv', csv(['foo,bar', '1,2']));
    expect(unmapped.json().data.mapping).toEqual([
      { column: 'foo', attribute: '' },
      { column: 'bar', attribute: '' },
    ]);
    expect((await preview(p.sales.token, 'x.bin', Buffer.from([1, 0, 2, 0]))).json()).toMatchObject({ code: 'import_file_invalid' });
    expect((await preview(p.sales.token, 'x.xlsx', Buffer.from('not a zip'))).json()).toMatchObject({ code: 'import_file_invalid' });
    expect((await preview(p.sales.token, 'x.csv', csv(['a']), { encoding: 'nope' })).json()).toMatchObject({ code: 'Bad Request' });
    expect((await preview(p.outsider.token, 'x.csv', csv(['name', 'A']))).statusCode).toBe(403);
    // No job and no file are left behind.
    const incoming = path.join(t.server.ctx.config.dataDir, 'imports', 'incoming');
    expect(fs.existsSync(incoming) ? fs.readdirSync(incoming) : []).toEqual([]);
  });

  it("serves a template with the project's current attributes, CSV and XLSX", async () => {
    const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/customer-import/template`, { token: p.sales.token });
    expect(res.statusCode).toBe(200);
    const header = res.body.slice(1).split('\r\n')[0] as string;
    expect(header.split(',').slice(0, 3)).toEqual(['姓名*', '手机', '座机']);
    expect(header).not.toContain('创建方式');
    const x = await t.server.api.get(`/api/v1.7/app/${p.appId}/customer-import/template`, {
      token: p.sales.token,
      query: { format: 'xlsx' },
    });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(x.rawPayload as unknown as ArrayBuffer);
    expect(wb.worksheets[0]?.getRow(1).getCell(1).value).toBe('姓名*');
    // The template fills back in: its own header maps every column.
    const job = await runImport(
      p.master.token,
      p.master.id,
      'template.csv',
      Buffer.from(`${res.body}Template Person,${uniquePhone()}\r\n`),
    );
    expect(job).toMatchObject({ created: 1, failed: 0 });
    expect(job.mapping.every((m) => m.attribute !== '')).toBe(true);
  });

  it('resumes an import a stopped process left, after its last committed batch, without duplicates', async () => {
    const n = 2500;
    const phones = Array.from({ length: n }, () => uniquePhone());
    const body = csv(['name,phone', ...phones.map((ph, i) => `Resume ${i},${ph}`)]);
    const res = await startImport(p.master.token, p.master.id, 'resume.csv', body);
    const id = res.json().data.id as string;
    // Stop this process's worker as soon as the first batch is committed: the import stays held until its lease runs out.
    for (;;) {
      const job = (await t.server.api.get(`${base(p.master.id)}/customer-import/${id}`, { token: p.master.token })).json().data as Job;
      if (job.processed > 0 || job.status === 'done') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await t.server.services.jobs.stop();
    const stopped = (await t.server.api.get(`${base(p.master.id)}/customer-import/${id}`, { token: p.master.token })).json().data as Job;
    expect(stopped.processed).toBeGreaterThan(0);
    // Another process (a restarted server) takes it up once the lease has run out.
    const other = createServices(t.server.ctx);
    other.jobs.start(['customer-import']);
    try {
      const job = await settled(p.master.token, p.master.id, id);
      expect(job).toMatchObject({ status: 'done', total: n, processed: n, created: n, failed: 0, skipped: 0 });
    } finally {
      await other.jobs.stop();
    }
    const count = await t.server.ctx.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .where('name', 'like', 'Resume %')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(n);
    t.server.services.jobs.start(['customer-import']);
  });
});

describe('CLI', () => {
  it('imports a file with the same summary as the endpoint, and exports every customer', async () => {
    const config = t.server.ctx.config;
    const env = { DATA_DIR: config.dataDir, ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}) };
    const file = path.join(config.dataDir, 'cli-import.csv');
    const phone = uniquePhone();
    fs.writeFileSync(file, csv(['name,phone', `CLI One,${phone}`, `CLI Two,${uniquePhone()}`, 'CLI Bad,nope']));
    const run = runCli(['import', 'customers', file, '--app', p.appId, '--owner', String(p.sales2.id)], env);
    expect(await run.exited, run.output()).toBe(0);
    const summary = JSON.parse(
      run
        .output()
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop() as string,
    );
    expect(summary).toMatchObject({ status: 'done', total: 3, processed: 3, created: 2, updated: 0, skipped: 0, failed: 1 });
    expect(await customersOf(p.master.token, phone)).toMatchObject([{ name: 'CLI One', svcUserId: String(p.sales2.id), createWay: 7 }]);

    const out = path.join(config.dataDir, 'cli-export.csv');
    const exported = runCli(['export', 'customers', '--app', p.appId, '--out', out, '--keyword', 'CLI'], env);
    expect(await exported.exited, exported.output()).toBe(0);
    const lines = fs.readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]?.startsWith('\uFEFFid,姓名,手机')).toBe(true);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[1])
        .sort(),
    ).toEqual(['CLI One', 'CLI Two']);
  });
});

describe('column mapping (property)', () => {
  const attributes = [
    { name: 'name', param: 'name', title: '姓名' },
    { name: 'phone', param: 'phone', title: '手机' },
    { name: 'fixedPhone', param: 'fixed_phone', title: '座机' },
    { name: 'email', param: 'email', title: '邮箱' },
    { name: 'company', param: 'company', title: '公司' },
  ];
  it('maps each attribute at most once, keeps the header length, and honours overrides', () => {
    const header = fc.oneof(
      fc.constantFrom('name', 'Name', ' PHONE ', 'fixed_phone', 'Fixed Phone', '座机', '邮箱', 'E-mail', 'company*', 'x', ''),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(header, { maxLength: 12 }), fc.nat(11), fc.constantFrom('', 'email', 'company'), (headers, col, target) => {
        const mapped = mapColumns(headers, attributes);
        expect(mapped).toHaveLength(headers.length);
        const used = mapped.filter((m): m is string => m !== null);
        expect(new Set(used).size).toBe(used.length);
        for (const m of used) expect(attributes.some((a) => a.name === m)).toBe(true);
        // A header that is an attribute's name, parameter or title maps to it unless an earlier column took it.
        headers.forEach((h, i) => {
          const a = attributes.find((x) => [x.name, x.param, x.title].some((l) => normalizedLabel(l) === normalizedLabel(h)));
          if (a && !mapped.slice(0, i).includes(a.name)) expect(mapped[i]).toBe(a.name);
        });
        if (col < headers.length) {
          const overridden = mapColumns(headers, attributes, { [String(col)]: target });
          expect(overridden[col]).toBe(target === '' ? null : target);
        }
      }),
    );
  });
});
