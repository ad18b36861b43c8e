// lanes: sqlite postgres
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../helpers/database.ts';
import { freePort, runCli, waitForOk } from '../helpers/process.ts';

/** The real process, as an operator runs it: CLI commands, the server over a socket, signals. */
let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('the rapport process', () => {
  it('migrate applies the schema once and reports it', async () => {
    const first = runCli(['migrate'], db.env);
    expect(await first.exited).toBe(0);
    expect(JSON.parse(first.output().trim().split('\n').pop() ?? '{}').applied).toContain('001_foundation');
    const second = runCli(['migrate'], db.env);
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('"applied":[]');
  });

  it('client create / list / revoke', async () => {
    const created = runCli(['client', 'create', '--name', 'CLI test'], db.env);
    expect(await created.exited).toBe(0);
    const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
    expect(Object.keys(client).sort()).toEqual(['client_id', 'client_secret']);
    const list = runCli(['client', 'list'], db.env);
    expect(await list.exited).toBe(0);
    expect(list.output()).toContain(client.client_id);
    expect(list.output()).not.toContain(client.client_secret);
    const revoke = runCli(['client', 'revoke', client.client_id], db.env);
    expect(await revoke.exited).toBe(0);
    const unknown = runCli(['client', 'revoke', 'rc_nope'], db.env);
    expect(await unknown.exited).toBe(1);
    const usage = runCli(['client', 'create'], db.env);
    expect(await usage.exited).toBe(2);
    expect(usage.output()).toContain('--name');
  });

  it('refuses a bad setting with a clear message', async () => {
    const bad = runCli(['serve'], { ...db.env, PORT: 'eighty' });
    expect(await bad.exited).toBe(78);
    expect(bad.output()).toContain('PORT must be a whole number');
    const tz = runCli(['migrate'], { ...db.env, TIME_ZONE: 'Mars/Olympus' });
    expect(await tz.exited).toBe(78);
    expect(tz.output()).toContain('TIME_ZONE');
  });

  it('serves over HTTP, answers the quickstart, and stops cleanly on SIGTERM', async () => {
    const created = runCli(['client', 'create', '--name', 'quickstart'], db.env);
    await created.exited;
    const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
    const port = await freePort();
    const server = runCli(['serve'], { ...db.env, PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitForOk(`${base}/healthz`);
      // No account yet: the log tells the operator the setup code and where to use it.
      for (let i = 0; i < 100 && !server.output().includes('no account exists yet'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(server.output()).toMatch(
        /no account exists yet: open \S+\/console\/sign-in\?setup=1 and create the first account with the setup code [A-Z2-9]{4}(-[A-Z2-9]{4}){3}/,
      );
      const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
      const reg = await fetch(`${base}/svcuser/oauth2/register`, {
        method: 'POST',
        headers: form,
        body: 'phoneNum=13811112222&password=long+enough+pw',
      });
      expect(reg.status).toBe(200);
      const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=password&username=13811112222&password=long+enough+pw',
      });
      const token = ((await login.json()) as { access_token: string }).access_token;
      const apps = await fetch(`${base}/api/v1.7/apps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=Over+the+wire',
      });
      expect(await apps.json()).toMatchObject({ status: 1, data: { name: 'Over the wire' } });
      const notFound = await fetch(`${base}/nowhere`);
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get('content-type')).toMatch(/text\/html/);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('shutting down');
  });

  it('user create --admin makes an activated server administrator, the password from standard input', async () => {
    const email = `operator.${process.pid}@example.com`;
    const created = runCli(['user', 'create', '--admin', '--email', email, '--name', 'Olive Operator'], db.env, {
      input: 'an operator password\n',
    });
    expect(await created.exited).toBe(0);
    const made = JSON.parse(created.output().trim().split('\n').pop() ?? '{}') as { id: number; username: string; admin: boolean };
    expect(made).toMatchObject({ username: email, admin: true });
    expect(created.output()).not.toContain('an operator password');
    const again = runCli(['user', 'create', '--email', email], db.env, { input: 'an operator password\n' });
    expect(await again.exited).toBe(1);
    expect(again.output()).toContain('already registered');
    const short = runCli(['user', 'create', '--email', `short.${process.pid}@example.com`], db.env, { input: 'short\n' });
    expect(await short.exited).toBe(1);
    const usage = runCli(['user', 'create', '--admin'], db.env, { input: '\n' });
    expect(await usage.exited).toBe(2);
    // The account signs in and is a server administrator.
    const port = await freePort();
    const server = runCli(['serve'], { ...db.env, PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitForOk(`${base}/healthz`);
      const session = await fetch(`${base}/svcuser/console/session`, {
        method: 'POST',
        headers: { origin: base, 'content-type': 'application/json' },
        body: JSON.stringify({ username: email, password: 'an operator password' }),
      });
      expect(session.status).toBe(200);
      const { access_token } = (await session.json()) as { access_token: string };
      const me = await fetch(`${base}/api/v1.7/admin/me`, { headers: { authorization: `Bearer ${access_token}` } });
      expect(await me.json()).toEqual({ status: 1, data: { admin: true } });
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });
});

describe('verification codes by SMTP', () => {
  it('sends the code to the address through SMTP_URL', async () => {
    const { startSmtpSink } = await import('../helpers/smtp-sink.ts');
    const sink = await startSmtpSink();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-smtp-'));
    const env = { DATA_DIR: dir, SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_FROM: 'Rapport <codes@example.com>' };
    try {
      const created = runCli(['client', 'create', '--name', 'smtp'], env);
      await created.exited;
      const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
      const port = await freePort();
      const server = runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
      try {
        await waitForOk(`http://127.0.0.1:${port}/healthz`);
        const res = await fetch(`http://127.0.0.1:${port}/svcuser/oauth2/verification-code`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `email=someone%40example.com&client_id=${client.client_id}&client_secret=${encodeURIComponent(client.client_secret)}`,
        });
        expect(res.status).toBe(200);
        const mail = await sink.nextMessage();
        expect(mail.to.join(' ')).toContain('someone@example.com');
        expect(mail.data).toMatch(/verification code is \d{6}/);
        expect(server.output()).not.toMatch(/"code":"\d{6}"/);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      await sink.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
