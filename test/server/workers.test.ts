// lanes: sqlite postgres
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

const processes = useProcessDatabase();

describe('WORKERS=2', () => {
  it('serves from two worker processes sharing the database and stops cleanly on SIGTERM', { timeout: 120_000 }, async () => {
    const created = runCli(['client', 'create', '--name', 'workers'], processes.db.env);
    await created.exited;
    const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
    const port = await freePort();
    const server = runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: '2' });
    processes.started(server);
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitForOk(`${base}/healthz`);
      const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
      await fetch(`${base}/svcuser/oauth2/register`, {
        method: 'POST',
        headers: form,
        body: 'phoneNum=13822223333&password=long+enough+pw',
      });
      const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=password&username=13822223333&password=long+enough+pw',
      });
      const token = ((await login.json()) as { access_token: string }).access_token;
      // Writes through one worker are read through the other: 20 calls land on both.
      const created = await fetch(`${base}/api/v1.7/apps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"name":"Clustered"}',
      });
      const appId = ((await created.json()) as { data: { appId: string } }).data.appId;
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${base}/api/v1.7/app/${appId}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json()),
        ),
      );
      for (const a of answers) expect(a).toMatchObject({ status: 1, data: { id: appId, name: 'Clustered' } });
      expect(server.output()).toContain('rapport primary started');
      // The port answers as soon as one worker listens; the second may still be starting.
      for (let i = 0; i < 200 && (server.output().match(/rapport is serving/g)?.length ?? 0) < 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(server.output().match(/rapport is serving/g)?.length).toBe(2);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('stops, exit code 1, when workers keep dying right after they start', { timeout: 180_000 }, async () => {
    // The port is taken, so every worker fails to listen and exits at once.
    const port = await freePort();
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const server = runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: '2' });
      processes.started(server);
      expect(await server.exited).toBe(1);
      expect(server.output()).toContain('worker keeps dying right after it starts; stopping');
      // Restarted after growing pauses, not at once.
      expect(server.output()).toContain('"restartInMs":4000');
    } finally {
      squatter.close();
    }
  });
});
