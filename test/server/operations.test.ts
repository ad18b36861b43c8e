// lanes: sqlite
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Spawned, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';
import { parseSamples, sampleValue } from '../helpers/prometheus.ts';

/** The real process, as an operator runs it: the metrics port, metrics across workers, SIGTERM. */
const processes = useProcessDatabase();
const TOKEN = 'operations-metrics-token-0123456789';

async function serve(env: Record<string, string>, port?: number): Promise<{ server: Spawned; base: string }> {
  port ??= await freePort();
  const server = processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', ...env }));
  const base = `http://127.0.0.1:${port}`;
  // Two workers each load the whole app before answering: on a busy 2-core machine that takes a while.
  await waitForOk(`${base}/healthz`, 45_000);
  return { server, base };
}

/** Waits until the server has written `text` to its log `times` times (or fails after 20 s). */
async function logged(server: Spawned, text: string, times = 1): Promise<void> {
  for (let i = 0; i < 400 && server.output().split(text).length - 1 < times; i++) await new Promise((r) => setTimeout(r, 50));
  expect(server.output().split(text).length - 1, server.output()).toBeGreaterThanOrEqual(times);
}

/** A GET on a connection of its own (so that under WORKERS the requests spread over the workers). */
function getAlone(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };

describe('METRICS_PORT', () => {
  it('serves /metrics on its own port with the token, and not on the API port', { timeout: 120_000 }, async () => {
    const metricsPort = await freePort();
    const { server, base } = await serve({ METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort) });
    try {
      const metrics = `http://127.0.0.1:${metricsPort}`;
      expect((await getAlone(`${base}/metrics`, bearer)).status).toBe(404);
      const refused = await getAlone(`${metrics}/metrics`);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toEqual({ error: 'access_denied', error_description: expect.any(String) });
      expect((await getAlone(`${metrics}/metrics`, { authorization: `Bearer ${TOKEN}-not` })).status).toBe(403);
      expect((await getAlone(`${metrics}/healthz`, bearer)).status).toBe(404);
      for (let i = 0; i < 3; i++) expect((await getAlone(`${base}/readyz`)).status).toBe(200);
      const scraped = await getAlone(`${metrics}/metrics`, bearer);
      expect(scraped.status).toBe(200);
      const samples = parseSamples(scraped.body);
      expect(sampleValue(samples, 'rapport_http_requests_total', { route: '/readyz', status: '200' })).toBe(3);
      expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('refuses METRICS_PORT without METRICS_TOKEN at start', async () => {
    const bad = runCli(['serve'], { ...processes.db.env, METRICS_PORT: String(await freePort()) });
    expect(await bad.exited).toBe(78);
    expect(bad.output()).toContain('METRICS_PORT needs METRICS_TOKEN');
  });
});

describe('metrics under WORKERS=2', () => {
  const readyzCount = (body: string) => sampleValue(parseSamples(body), 'rapport_http_requests_total', { route: '/readyz', status: '200' });

  it('adds up every worker on METRICS_PORT, served by the primary', { timeout: 120_000 }, async () => {
    const metricsPort = await freePort();
    const { server, base } = await serve({ METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), WORKERS: '2' });
    try {
      // Both workers up before counting, so that both are asked.
      await logged(server, 'rapport is serving', 2);
      // On 127.0.0.1 alone, localhost is where customers are too: nothing to warn of.
      expect(server.output()).not.toContain('set PUBLIC_BASE_URL');
      // Each on a connection of its own: the cluster hands them out to both workers.
      for (let i = 0; i < 10; i++) expect((await getAlone(`${base}/readyz`)).status).toBe(200);
      const scraped = await getAlone(`http://127.0.0.1:${metricsPort}/metrics`, bearer);
      expect(scraped.status).toBe(200);
      expect(readyzCount(scraped.body)).toBe(10);
      // Process metrics of both workers, summed: two processes' worth of open handles and heap.
      expect(sampleValue(parseSamples(scraped.body), 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('adds up every worker on the API port too, whichever worker answers the scrape', { timeout: 120_000 }, async () => {
    // Listening beyond this machine with PUBLIC_BASE_URL unset: links would point at localhost.
    const { server, base } = await serve({ METRICS_TOKEN: TOKEN, WORKERS: '2', HOST: '0.0.0.0' });
    try {
      await logged(server, 'rapport is serving', 2);
      // Said once, by the first worker, with what to do.
      expect(server.output().split('set PUBLIC_BASE_URL to the address customers reach').length - 1).toBe(1);
      for (let i = 0; i < 10; i++) expect((await getAlone(`${base}/readyz`)).status).toBe(200);
      for (let i = 0; i < 4; i++) {
        const scraped = await getAlone(`${base}/metrics`, bearer);
        expect(scraped.status).toBe(200);
        expect(readyzCount(scraped.body)).toBe(10);
      }
      expect((await getAlone(`${base}/metrics`)).status).toBe(403);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });
});

describe('SIGTERM', () => {
  it('answers the request in flight, writes it, then exits 0; new connections are refused', { timeout: 120_000 }, async () => {
    const { server, base } = await serve({});
    const { appId, secret } = await provisionProject(base, processes.db.env, '13866660001');
    const post = (batch: unknown) =>
      fetch(`${base}/api/v1.7/app/${appId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-app-secret': secret },
        body: JSON.stringify(batch),
      });
    const customer = [{ event_type: 'create', domainType: 'Customer', domainId: 'drained-customer', body: { name: 'Drained' } }];
    expect(await (await post(customer)).json()).toMatchObject({ status: 1 });
    const behaviour = [
      {
        event_type: 'create',
        domainType: 'BehaviourLog',
        domainId: 'in-flight-at-sigterm',
        body: { customerId: 'drained-customer', action: 'send_message', when: '2026-11-01 10:00:00' },
      },
    ];
    const body = JSON.stringify(behaviour);
    // The request's headers reach the server (it answers 100 Continue once it has them), then SIGTERM,
    // then its body: the server is shutting down while the request is in flight.
    const answer = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(`${base}/api/v1.7/app/${appId}/events`, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-app-secret': secret,
          expect: '100-continue',
        },
      });
      req.on('continue', () => {
        server.child.kill('SIGTERM');
        void logged(server, 'shutting down').then(async () => {
          // Listening has stopped: a new connection is refused.
          await expect(getAlone(`${base}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
          req.end(body);
        }, reject);
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
      });
      req.on('error', reject);
    });
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ status: 1, data: { accepted: 1, duplicates: 0 } });
    expect(await server.exited).toBe(0);

    // It was written: a server started again finds it stored.
    const again = await serve({}, Number(new URL(base).port));
    try {
      expect(await (await post(behaviour)).json()).toMatchObject({ status: 1, data: { accepted: 0, duplicates: 1 } });
    } finally {
      again.server.child.kill('SIGTERM');
    }
    expect(await again.server.exited).toBe(0);
  });
});
