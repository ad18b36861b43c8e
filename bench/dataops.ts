/**
 * Customer import and export figures: a CSV of ROWS customers (1,000,000; 100,000 with --quick) with
 * 5 % duplicate mobile numbers and 1 % invalid rows, generated in bench/tmp, uploaded to the real server
 * (as `npm start` runs it, the event relay running) and imported as a job; then every customer
 * exported as CSV. Rows per second and the server's peak RSS for each.
 *   node --import tsx bench/dataops.ts [--db sqlite|postgres] [--rows N]
 * `npm run bench` runs it too (the "import" and "export" rows).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sleep, startBenchServer } from './instance.ts';
import { flag, option } from './options.ts';
import { runMain, samplePeak } from './support/report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const ROWS = Number(option('rows', flag('quick') ? '100000' : '1000000'));
const TMP = path.join(ROOT, 'bench/tmp');

/** The CSV: unique mobile numbers, every 20th row repeating an earlier row's, every 100th with a malformed one. */
async function generate(file: string, rows: number): Promise<void> {
  const out = fs.createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('姓名,手机,邮箱,公司名称,职位\r\n');
  const phone = (i: number) => `139${String(i).padStart(8, '0')}`;
  let chunk = '';
  for (let i = 1; i <= rows; i += 1) {
    const p = i % 100 === 0 ? 'not-a-phone' : i % 20 === 0 ? phone(i - 7) : phone(i);
    chunk += `Customer ${i},${p},c${i}@example.com,"Company ${i % 5000}, Ltd",Buyer\r\n`;
    if (chunk.length > 256 * 1024) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((r) => out.end(() => r()));
}

/** A multipart upload of a file, streamed, with its Content-Length (the server needs it). */
function upload(
  url: string,
  token: string,
  file: string,
  fields: Record<string, string>,
): Promise<{ status: number; data: { id: string } }> {
  const boundary = `----rapportbench${randomBytes(8).toString('hex')}`;
  let headText = '';
  for (const [k, v] of Object.entries(fields)) headText += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  headText += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: text/csv\r\n\r\n`;
  const head = Buffer.from(headText);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text) as { status: number; data: { id: string } });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('error', reject);
    req.write(head);
    const body = fs.createReadStream(file);
    body.pipe(req, { end: false });
    body.on('end', () => req.end(tail));
  });
}

async function main(): Promise<void> {
  fs.mkdirSync(TMP, { recursive: true });
  const csvFile = path.join(TMP, `customers-${ROWS}.csv`);
  if (!fs.existsSync(csvFile)) await generate(csvFile, ROWS);
  // The relay runs, as the targets ask: every created customer's events are delivered meanwhile.
  const server = await startBenchServer({ db: DB, label: 'dataops', env: { RAPPORT_EMBEDDED_RELAY: 'true' } });
  try {
    const { base } = server;
    const { token, auth, appId } = await server.signIn('Import bench');
    const me = (await (await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken?access_token=${token}`, { headers: auth })).json()) as {
      data?: { id: number };
      id?: number;
    };
    const userId = me.data?.id ?? me.id;
    const sampler = samplePeak(server.rss);
    try {
      const t0 = performance.now();
      const answer = await upload(`${base}/api/v1.7/app/${appId}/member/${userId}/customer-imports`, token, csvFile, {
        duplicate_policy: 'skip',
      });
      if (answer.status !== 1) throw new Error(`import refused: ${JSON.stringify(answer)}`);
      const uploadMs = performance.now() - t0;
      let job: Record<string, unknown> = {};
      for (;;) {
        const res = await fetch(`${base}/api/v1.7/app/${appId}/member/${userId}/customer-import/${answer.data.id}`, { headers: auth });
        // A busy server may shed a poll (503): ask again.
        if (res.status !== 200) {
          await res.arrayBuffer();
          await sleep(200);
          continue;
        }
        job = ((await res.json()) as { data: Record<string, unknown> }).data;
        if (job.status === 'done' || job.status === 'failed') break;
        await sleep(200);
      }
      const importMs = performance.now() - t0;
      const importPeak = sampler.reset();
      const e0 = performance.now();
      const res = await fetch(`${base}/api/v1.7/app/${appId}/customers/export?format=csv`, { headers: auth });
      let lines = 0;
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines += 1;
      }
      const exportMs = performance.now() - e0;
      const exported = lines - 1;
      const summary = {
        database: DB,
        rows: ROWS,
        machine: { cpus: os.cpus().length, node: process.version },
        import: {
          job,
          uploadMs: Math.round(uploadMs),
          totalMs: Math.round(importMs),
          rowsPerSecond: Math.round(ROWS / (importMs / 1000)),
          peakRssMB: Math.round(importPeak / 1e6),
        },
        export: {
          rows: exported,
          bytes,
          ms: Math.round(exportMs),
          rowsPerSecond: Math.round(exported / (exportMs / 1000)),
          peakRssMB: Math.round(sampler.peak() / 1e6),
        },
      };
      console.log(JSON.stringify(summary, null, 2));
    } finally {
      sampler.stop();
    }
  } finally {
    await server.stop();
  }
}

runMain(main);
