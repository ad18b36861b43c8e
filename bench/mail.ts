/**
 * Campaign mail figures: the real server (as `npm start` runs it) on a fresh database, sending one
 * campaign to a local SMTP server in this process (smtp-server, which reads every message and keeps
 * nothing). The figure is mails per second from the create call to the campaign's `done`: each mail
 * claimed from the durable queue (`sending` written before the SMTP call, `sent` after), merged,
 * rendered with its tracked links and pixel, handed to the pooled SMTP transport, and its send
 * written to the Post counters and the customer's behaviour through ingestion.
 *   node --import tsx bench/mail.ts [--db sqlite|postgres] [--recipients N]
 * `npm run bench` runs it too (the "campaign mail" row). The rate limit is lifted
 * (MAIL_RATE_PER_SECOND=10000) so that the figure is what the sender can do; MAIL_CONNECTIONS is
 * the default (5).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { option } from './options.ts';
import { SERVER_ARGS, SERVER_ENV, SERVER_FLAGS, buildServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const RECIPIENTS = Number(option('recipients', '5000'));
const PG_ADMIN = process.env.RAPPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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

async function main(): Promise<void> {
  buildServer();
  let received = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received += 1;
        callback();
      });
    },
  });
  const smtpPort = await freePort();
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-bench-mail-'));
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
        RAPPORT_EMBEDDED_RELAY: 'false',
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}${process.env.BENCH_SMTP_QUERY ?? ''}`,
        MAIL_RATE_PER_SECOND: '10000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.stdout?.pipe(process.stderr);
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
    const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const appId = (
      (await (await fetch(`${base}/api/v1.7/apps`, { method: 'POST', headers: json, body: '{"name":"Mail bench"}' })).json()) as {
        data: { appId: string };
      }
    ).data.appId;
    const ids: string[] = [];
    for (let i = 0; i < RECIPIENTS; i += 1000) {
      const batch = [];
      for (let j = i; j < Math.min(RECIPIENTS, i + 1000); j++) {
        ids.push(`m${j}`);
        batch.push({
          event_type: 'create',
          domainType: 'Customer',
          domainId: `m${j}`,
          body: { name: `Reader ${j}`, email: `r${j}@example.com` },
        });
      }
      const res = await fetch(`${base}/api/v1.7/app/${appId}/events`, { method: 'POST', headers: json, body: JSON.stringify(batch) });
      const answer = (await res.json()) as { status: number };
      if (answer.status !== 1) throw new Error(`customers not stored: ${JSON.stringify(answer)}`);
    }
    const html =
      '<html><body><h1>Hello {{name}}</h1><p>Our <a href="https://shop.example/autumn?utm_source=mail">autumn offer</a> ' +
      'and <a href="https://shop.example/pricing">pricing</a>.</p><p>{{company}}</p></body></html>';
    const pid = server.pid ?? 0;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
    const started = performance.now();
    const created = (await (
      await fetch(`${base}/api/v1.7/app/${appId}/posts`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: 'Autumn', html, customer_ids: ids.join(',') }),
      })
    ).json()) as { status: number; data: { postId: string } };
    if (created.status !== 1) throw new Error(`campaign not created: ${JSON.stringify(created)}`);
    const createdMs = performance.now() - started;
    let progress: { status: string; states: Record<string, number> } = { status: '', states: {} };
    while (progress.status !== 'done') {
      await sleep(25);
      const res = await fetch(`${base}/api/v1.7/app/${appId}/post/${created.data.postId}`, { headers: auth });
      progress = ((await res.json()) as { data: typeof progress }).data;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    console.log(
      JSON.stringify(
        {
          database: DB,
          machine: { cpus: os.cpus().length, node: process.version },
          recipients: RECIPIENTS,
          received,
          sent: progress.states.sent ?? 0,
          createMs: Math.round(createdMs),
          seconds: Math.round(seconds * 10) / 10,
          mailsPerSec: Math.round((progress.states.sent ?? 0) / seconds),
          peakRssMB: Math.round(peak / 1e6),
        },
        null,
        2,
      ),
    );
  } finally {
    if (server) {
      server.kill('SIGTERM');
      await new Promise((r) => server?.once('exit', r));
    }
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
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
