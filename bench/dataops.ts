/**
 * Customer import and export figures: a CSV of ROWS customers (1,000,000; 100,000 with --quick) with
 * 5 % duplicate mobile numbers and 1 % invalid rows, generated in bench/tmp, uploaded to the real server
 * (as `npm start` runs it, the event relay running) and imported as a job; then every customer
 * exported as CSV. Rows per second and the server's peak RSS for each.
 *   node --import tsx bench/dataops.ts [--db sqlite|postgres] [--rows N]
 * `npm run bench` runs it too (the "import" and "export" rows).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { flag, option } from './options.ts';
import { SERVER_ARGS, SERVER_ENV, SERVER_FLAGS, buildServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const ROWS = Number(option('rows', flag('quick') ? '100000' : '1000000'));
const PG_ADMIN = process.env.RAPPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(ROOT, 'bench/tmp');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/rapport.js', ...args], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`rapport ${args.join(' ')} exited ${code}`))));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  buildServer();
  fs.mkdirSync(TMP, { recursive: true });
  const csvFile = path.join(TMP, `customers-${ROWS}.csv`);
  if (!fs.existsSync(csvFile)) await generate(csvFile, ROWS);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-bench-dataops-'));
  let dbName: string | null = null;
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (DB === 'postgres') {
    dbName = `rapport_bench_${randomBytes(4).toString('hex')}`;
    const c = new pg.Client(PG_ADMIN);
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const url = new URL(PG_ADMIN);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  let server: ChildProcess | null = null;
  try {
    await cli(['migrate'], env);
    const client = JSON.parse(await cli(['client', 'create', '--name', 'bench'], env)) as { client_id: string; client_secret: string };
    const port = await freePort();
    server = spawn(process.execPath, [...SERVER_FLAGS, ...SERVER_ARGS], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...SERVER_ENV,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // The relay runs, as the targets ask: every created customer's events are delivered meanwhile.
        RAPPORT_EMBEDDED_RELAY: 'true',
      },
      stdio: 'inherit',
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        // not yet
      }
      if (i > 400) throw new Error('the server never answered');
      await sleep(50);
    }
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    await fetch(`${base}/svcuser/oauth2/register`, { method: 'POST', headers: form, body: 'phoneNum=13900000000&password=bench+password' });
    const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
      method: 'POST',
      headers: form,
      body: 'grant_type=password&username=13900000000&password=bench+password',
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/v1.7/apps`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Import bench' }),
    });
    const appId = ((await created.json()) as { data: { appId: string } }).data.appId;
    const me = (await (await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken?access_token=${token}`, { headers: auth })).json()) as {
      data?: { id: number };
      id?: number;
    };
    const userId = me.data?.id ?? me.id;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server?.pid ?? 0))), 100);
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
      const importPeak = peak;
      peak = 0;
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
          peakRssMB: Math.round(peak / 1e6),
        },
      };
      console.log(JSON.stringify(summary, null, 2));
    } finally {
      clearInterval(sampler);
    }
  } finally {
    if (server) {
      server.kill('SIGTERM');
      await new Promise((r) => server?.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dbName !== null) {
      const c = new pg.Client(PG_ADMIN);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
