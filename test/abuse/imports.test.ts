// lanes: sqlite postgres
/**
 * Attacks on customer imports: workbooks built to exhaust the reader's memory (millions of shared
 * strings in a small file, entries that inflate far beyond their size), sent to the preview and to
 * the import by a Sales member; and a Sales member's import aimed at a colleague's customer.
 */
import { describe, expect, it } from 'vitest';
import { multipart } from '../helpers/files.ts';
import { manySharedStrings, sheetXml, workbook } from '../helpers/zip.ts';
import { type AbuseProject, type AbuseUser, addMember, abusePhone, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

// An inflated-size limit of 60 MiB (default 1 GiB), so an honest entry over it is cheap to build here.
const t = useAbuseServer({ IMPORT_XLSX_MAX_INFLATED: String(60 * 1024 * 1024) });

interface Answer {
  status: number;
  code?: string;
  msg?: string;
  data?: Record<string, unknown>;
}

let master: AbuseUser;
let attacker: AbuseUser;
let colleague: AbuseUser;
let project: AbuseProject;

async function send(user: AbuseUser, path: string, filename: string, bytes: Buffer, fields: Record<string, string> = {}) {
  const body = multipart({ filename, bytes }, fields);
  const res = await fetch(`${t.server.base}${path}`, {
    method: 'POST',
    headers: { ...user.auth, 'content-type': body.contentType },
    body: body.payload,
  });
  return { http: res.status, body: (await res.json()) as Answer };
}

const previewPath = () => `/api/v1.7/app/${project.appId}/customer-import/preview`;
const importPath = (user: AbuseUser) => `/api/v1.7/app/${project.appId}/member/${user.id}/customer-imports`;

async function get(user: AbuseUser, path: string): Promise<Answer> {
  return (await (await fetch(`${t.server.base}${path}`, { headers: user.auth })).json()) as Answer;
}

/** The colleague's list of their customers: the request probed while the attack runs. */
const probe = () => fetch(`${t.server.base}/api/v1.7/app/${project.appId}/member/all/customers?count=20`, { headers: colleague.auth });

async function createCustomer(user: AbuseUser, fields: Record<string, string>): Promise<string> {
  const res = await fetch(`${t.server.base}/api/v1.7/app/${project.appId}/member/${user.id}/customers`, {
    method: 'POST',
    headers: { ...user.auth, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  const body = (await res.json()) as Answer;
  expect(body.status).toBe(1);
  return (body.data as { id: string }).id;
}

describe('import abuse', () => {
  it('sets up a project with a Sales attacker and a colleague', async () => {
    master = await signUp(t.server);
    attacker = await signUp(t.server);
    colleague = await signUp(t.server);
    project = await createProject(t.server, master);
    await addMember(t.server, master, project.appId, attacker);
    await addMember(t.server, master, project.appId, colleague);
  });

  it(
    'refuses workbooks of millions of shared strings and inflating entries, at the preview and the import, within memory',
    { timeout: 120_000 },
    async () => {
      const header = '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>';
      const hostile = {
        // 3,000,000 shared strings, with and without a declared count, in a file of ~125 KB.
        undeclared: workbook({ sheet: header, sharedStrings: manySharedStrings(3_000_000) }),
        declared: workbook({ sheet: header, sharedStrings: manySharedStrings(3_000_000, true) }),
        // An entry that says it is small and inflates to 64 MB; and one whose declared size is over the limit.
        lying: workbook({
          sheet: Buffer.concat([Buffer.from(sheetXml([['name']])), Buffer.alloc(64 * 1024 * 1024, ' ')]),
          declared: { 'xl/worksheets/sheet1.xml': 4096 },
        }),
        honest: workbook({ sheet: Buffer.concat([Buffer.from(sheetXml([['name']])), Buffer.alloc(64 * 1024 * 1024, ' ')]) }),
      };
      const expected: Record<keyof typeof hostile, string> = {
        undeclared: 'more than 1,000,000 shared strings',
        declared: 'more than 1,000,000 shared strings',
        lying: 'inflates beyond the 4096 bytes it declares',
        honest: 'IMPORT_XLSX_MAX_INFLATED',
      };
      for (const [name, bytes] of Object.entries(hostile) as [keyof typeof hostile, Buffer][]) {
        expect(bytes.length).toBeLessThan(1_300_000);
        const attack = await underAttack(
          t.server,
          () =>
            Promise.all([
              send(attacker, previewPath(), `${name}.xlsx`, bytes),
              send(attacker, previewPath(), `${name}.xlsx`, bytes),
              send(attacker, importPath(attacker), `${name}.xlsx`, bytes, { duplicate_policy: 'update' }),
              send(attacker, importPath(attacker), `${name}.xlsx`, bytes),
            ]),
          probe,
        );
        for (const answer of attack.result) {
          expect(answer.http).toBe(200);
          expect(answer.body).toMatchObject({ status: 0, code: 'import_file_invalid' });
          expect(answer.body.msg).toContain(expected[name]);
        }
        expect(t.server.alive()).toBe(true);
        expect(attack.worstMs).toBeLessThan(1000);
        expect(attack.peakRssMb).toBeLessThan(400);
      }
      // Refused before a job exists: the attacker has no import.
      expect((await get(attacker, `${importPath(attacker)}?count=100`)).data).toEqual([]);
    },
  );

  it("neither changes, moves nor reveals a colleague's customer through the attacker's imports", { timeout: 120_000 }, async () => {
    /** A fresh customer of the colleague's for each attempt (a real run gives the attacker their own with its address). */
    const targets: { id: string; before: Record<string, unknown> }[] = [];
    const detail = async (id: string) => (await get(master, `/api/v1.7/customer/${id}/detail`)).data as Record<string, unknown>;
    const colleagueCustomer = async () => {
      const phone = abusePhone();
      const email = `their-${phone}@example.com`;
      const id = await createCustomer(colleague, { name: 'Their Customer', phone, email, company: 'Their Co' });
      const before = await detail(id);
      expect(before).toMatchObject({ name: 'Their Customer', company: 'Their Co', svcUserId: String(colleague.id) });
      targets.push({ id, before });
      return { phone, email };
    };

    const settle = async (id: string) => {
      for (let i = 0; i < 400; i += 1) {
        const job = (await get(attacker, `/api/v1.7/app/${project.appId}/member/${attacker.id}/customer-import/${id}`)).data as Record<
          string,
          unknown
        >;
        if (job.status === 'done' || job.status === 'failed') return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the import did not end');
    };
    const answerFor = async (email: string, phone: string, fields: Record<string, string>) => {
      const file = Buffer.from(`name,email,phone,company\r\nTaken,${email},${phone},Attacker Co\r\n`);
      const started = await send(attacker, importPath(attacker), 'x.csv', file, fields);
      expect(started.body.status).toBe(1);
      const job = await settle((started.body.data as { id: string }).id);
      return { status: job.status, total: job.total, created: job.created, updated: job.updated, skipped: job.skipped, failed: job.failed };
    };
    const runs: Record<string, string>[] = [
      { duplicate_policy: 'update', dry_run: 'true' },
      { duplicate_policy: 'skip', dry_run: 'true' },
      { duplicate_policy: 'merge', dry_run: 'true' },
      { duplicate_policy: 'skip' },
      { duplicate_policy: 'update' },
      { duplicate_policy: 'merge' },
    ];
    const attack = await underAttack(
      t.server,
      async () => {
        const pairs: [unknown, unknown, unknown][] = [];
        for (const fields of runs) {
          const byEmail = await colleagueCustomer();
          const byPhone = await colleagueCustomer();
          const unused = abusePhone();
          pairs.push([
            await answerFor(byEmail.email, abusePhone(), fields),
            await answerFor(`x-${byPhone.phone}@example.com`, byPhone.phone, fields),
            await answerFor(`never-${unused}@example.com`, unused, fields),
          ]);
        }
        return pairs;
      },
      probe,
    );
    for (const [byEmail, byPhone, byNobody] of attack.result) {
      expect(byEmail).toEqual(byNobody);
      expect(byPhone).toEqual(byNobody);
      expect(byNobody).toMatchObject({ status: 'done', total: 1, created: 1, updated: 0, skipped: 0, failed: 0 });
    }
    for (const target of targets) expect(await detail(target.id)).toEqual(target.before);
    expect(t.server.alive()).toBe(true);
    expect(attack.worstMs).toBeLessThan(1000);
  });
});
