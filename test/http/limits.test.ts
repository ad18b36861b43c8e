// lanes: sqlite
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeUser, createClient } from '../helpers/fixtures.ts';
import { type TestServer, startTestServer, useTestServer } from '../helpers/harness.ts';

/** Small budgets, so that a test spends one in a few calls. */
const LIMITS = { RATE_LIMITS: 'on', RATE_LIMIT_TOKEN: '5', RATE_LIMIT_PROJECT: '2', RATE_LIMIT_CLIENT: '4', RATE_LIMIT_IP: '3' };

const t = useTestServer(LIMITS);

/** The headers of a counted answer, as numbers. */
function budget(res: { headers: Record<string, unknown> }) {
  return {
    limit: Number(res.headers['ratelimit-limit']),
    remaining: Number(res.headers['ratelimit-remaining']),
    reset: Number(res.headers['ratelimit-reset']),
  };
}

describe('rate limits under /api', () => {
  it("count per user, whichever of the user's tokens, answer 429 rate_limited with Retry-After when spent, and keep two users apart", async () => {
    // One client per user: the log-in calls count against the client, not the tokens.
    const annClient = await createClient(t.server);
    const ann = await activeUser(t.server, annClient);
    const bob = await activeUser(t.server, await createClient(t.server));
    // activeUser read the user info once with each token: 4 of 5 left.
    const seen: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await t.server.api.get('/api/v1.7/my-apps', { token: ann.token });
      expect(res.json()).toMatchObject({ status: 1 });
      expect(budget(res).limit).toBe(5);
      expect(budget(res).reset).toBeGreaterThan(0);
      expect(budget(res).reset).toBeLessThanOrEqual(60);
      seen.push(budget(res).remaining);
    }
    expect(seen).toEqual([3, 2, 1, 0]);

    const refused = await t.server.api.get('/api/v1.7/my-apps', { token: ann.token });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ status: 0, code: 'rate_limited', msg: expect.stringContaining('this account') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(budget(refused)).toMatchObject({ limit: 5, remaining: 0 });

    // A new token of the same user buys no new budget.
    const again = await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'password', username: ann.username, password: ann.password },
      { form: true, headers: { authorization: annClient.basic } },
    );
    const second = again.json().access_token as string;
    expect(second).not.toBe(ann.token);
    expect((await t.server.api.get('/api/v1.7/my-apps', { token: second })).statusCode).toBe(429);

    // Every address is refused for that user; another user has a budget of their own.
    const other = await t.server.api.get('/api/v1.7/my-apps', { token: bob.token });
    expect(other.json()).toMatchObject({ status: 1 });
    expect(budget(other)).toMatchObject({ limit: 5, remaining: 3 });
  });

  it('count requests with made-up tokens under their address, so they buy no fresh budget', async () => {
    const ip = '192.0.2.10';
    for (let i = 0; i < 3; i += 1) {
      const res = await t.server.api.get('/api/v1.7/my-apps', { token: randomBytes(16).toString('hex'), ip });
      expect(res.statusCode).toBe(403);
      expect(budget(res)).toMatchObject({ limit: 3, remaining: 2 - i });
    }
    const res = await t.server.api.get('/api/v1.7/my-apps', { token: randomBytes(16).toString('hex'), ip });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ status: 0, code: 'rate_limited' });
    // Nor does sending no token at all, from that address.
    expect((await t.server.api.get('/api/v1.7/my-apps', { ip })).statusCode).toBe(429);
    // Another address still gets its answer.
    expect((await t.server.api.get('/api/v1.7/my-apps', { ip: '192.0.2.11' })).statusCode).toBe(403);
  });

  it('count unauthenticated requests per address, unknown paths included', async () => {
    const ip = '192.0.2.20';
    for (let i = 0; i < 3; i += 1) expect((await t.server.api.get('/no/such/page', { ip })).statusCode).toBe(404);
    const res = await t.server.api.get('/no/such/page', { ip });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ status: 0, code: 'rate_limited', msg: expect.stringContaining('address') });
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('leave /healthz and the API reference alone', async () => {
    const ip = '192.0.2.30';
    for (let i = 0; i < 6; i += 1) {
      const health = await t.server.api.get('/healthz', { ip });
      expect(health.statusCode).toBe(200);
      expect(health.headers['ratelimit-limit']).toBeUndefined();
      expect((await t.server.api.get('/openapi.json', { ip })).statusCode).toBe(200);
      expect((await t.server.api.get('/docs', { ip })).statusCode).toBe(200);
    }
  });
});

describe('rate limits on ingestion', () => {
  it('count batches sent with the project secret per project, and wrong secrets per address', async () => {
    const master = await activeUser(t.server, await createClient(t.server));
    const created = await t.server.api.post('/api/v1.7/apps', { name: 'Limited' }, { token: master.token });
    const appId = (created.json() as { data: { appId: string } }).data.appId;
    const apps = await t.server.api.get('/api/v1.7/my-apps', { token: master.token });
    const secret = (apps.json() as { data: { id: string; secret: string }[] }).data.find((a) => a.id === appId)?.secret as string;
    const send = (key: string, ip?: string) =>
      t.server.api.post(`/api/v1.7/app/${appId}/events`, [], { headers: { 'x-app-secret': key }, ...(ip ? { ip } : {}) });

    // Each call comes from another address: the budget is the project's.
    for (let i = 0; i < 2; i += 1) {
      const res = await send(secret);
      expect(res.json()).toMatchObject({ status: 1, data: { accepted: 0 } });
      expect(budget(res)).toMatchObject({ limit: 2, remaining: 1 - i });
    }
    const refused = await send(secret);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ status: 0, code: 'rate_limited', msg: expect.stringContaining('project') });
    expect(refused.headers['retry-after']).toBeDefined();

    const ip = '192.0.2.90';
    for (let i = 0; i < 3; i += 1) expect((await send('wrong secret', ip)).statusCode).toBe(403);
    expect((await send('wrong secret', ip)).statusCode).toBe(429);
  });
});

describe('rate limits under /svcuser', () => {
  it('count the token calls per OAuth client and address, and answer 429 too_many_requests', async () => {
    const client = await createClient(t.server, 'busy client');
    const refresh = (ip = '192.0.2.30') =>
      t.server.api.post(
        '/svcuser/oauth2/access_token',
        { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' },
        { form: true, headers: { authorization: client.basic }, ip },
      );
    for (let i = 0; i < 4; i += 1) {
      const res = await refresh();
      expect(res.statusCode).toBe(400);
      expect(budget(res)).toMatchObject({ limit: 4, remaining: 3 - i });
    }
    const refused = await refresh();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringContaining('client') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(budget(refused)).toMatchObject({ limit: 4, remaining: 0 });
    // The same client from another address (its other users) is not held back: a leaked client
    // secret used from elsewhere cannot lock the client's users out.
    const elsewhere = await refresh('192.0.2.31');
    expect(elsewhere.statusCode).toBe(400);
    expect(budget(elsewhere)).toMatchObject({ limit: 4, remaining: 3 });
    // Another client is not held back.
    const fresh = await createClient(t.server, 'quiet client');
    const ok = await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { form: true, headers: { authorization: fresh.basic } },
    );
    expect(ok.statusCode).toBe(400);
    expect(ok.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('count calls with a wrong client secret under their address', async () => {
    const ip = '192.0.2.40';
    const call = () =>
      t.server.api.post(
        '/svcuser/oauth2/access_token',
        {
          grant_type: 'password',
          username: 'nobody',
          password: 'whatever1',
          client_id: `rc_${randomBytes(6).toString('hex')}`,
          client_secret: 'x',
        },
        { form: true, ip },
      );
    for (let i = 0; i < 3; i += 1) expect((await call()).json()).toMatchObject({ error: 'invalid_client' });
    const refused = await call();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'too_many_requests' });
  });

  it('keeps the log-in throttle: ten failed passwords, then 429 whatever the password', async () => {
    const server = await startTestServer();
    try {
      const client = await createClient(server);
      const user = await activeUser(server, client);
      const login = (password: string) =>
        server.api.post(
          '/svcuser/oauth2/access_token',
          { grant_type: 'password', username: user.username, password },
          { form: true, headers: { authorization: client.basic }, ip: '192.0.2.50' },
        );
      for (let i = 0; i < 10; i += 1) expect((await login('wrong password')).json()).toMatchObject({ error: 'invalid_grant' });
      const refused = await login(user.password);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'too_many_requests' });
      expect(refused.headers['retry-after']).toBeDefined();
      // Rate limits are off on this server: the throttle's 429 carries no budget.
      expect(refused.headers['ratelimit-limit']).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('TRUST_PROXY', () => {
  it('with a number of hops, believes only what the proxy saw: a client cannot pick its address', async () => {
    const server = await startTestServer({ ...LIMITS, TRUST_PROXY: '1' });
    try {
      // Through one proxy at 10.0.0.1: the client wrote the left entries, the proxy appended the address it saw.
      const via = (spoofed: string) =>
        server.api.get('/no/such/page', { ip: '10.0.0.1', headers: { 'x-forwarded-for': `${spoofed}, 203.0.113.9` } });
      const remaining: number[] = [];
      for (const spoofed of ['1.1.1.1', '2.2.2.2', 'not-an-ip']) remaining.push(budget(await via(spoofed)).remaining);
      expect(remaining).toEqual([2, 1, 0]);
      expect((await via('3.3.3.3')).statusCode).toBe(429);
      // Another client behind the same proxy has its own budget.
      const other = await server.api.get('/no/such/page', { ip: '10.0.0.1', headers: { 'x-forwarded-for': '203.0.113.10' } });
      expect(budget(other)).toMatchObject({ remaining: 2 });
    } finally {
      await server.close();
    }
  });

  it('refuses a value it cannot read, at start', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.ts');
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: 'yes please' })).toThrow(ConfigError);
  });
});

describe('RATE_LIMITS=off', () => {
  it('counts nothing', async () => {
    const server = await startTestServer({ RATE_LIMITS: 'off', RATE_LIMIT_TOKEN: '1', RATE_LIMIT_IP: '1' });
    try {
      const user = await activeUser(server, await createClient(server));
      for (let i = 0; i < 5; i += 1) {
        const res = await server.api.get('/api/v1.7/my-apps', { token: user.token, ip: '192.0.2.60' });
        expect(res.json()).toMatchObject({ status: 1 });
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect((await server.api.get('/no/such/page', { ip: '192.0.2.60' })).statusCode).toBe(404);
      }
    } finally {
      await server.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  const prefix = `rapport-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    await redis.connect();
    const env = { ...LIMITS, REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_REDIS_PREFIX: prefix };
    a = await startTestServer(env);
    b = await startTestServer(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('count one budget across two servers', async () => {
    const ip = '192.0.2.70';
    const ready = async (server: TestServer) => {
      // The connection to Redis is made as the server starts; until it is up nothing is counted.
      for (
        let i = 0;
        i < 100 && (await server.api.get('/no/such/page', { ip: '192.0.2.71' })).headers['ratelimit-limit'] === undefined;
        i += 1
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await ready(a);
    await ready(b);
    expect(budget(await a.api.get('/no/such/page', { ip }))).toMatchObject({ limit: 3, remaining: 2 });
    expect(budget(await b.api.get('/no/such/page', { ip }))).toMatchObject({ limit: 3, remaining: 1 });
    expect(budget(await a.api.get('/no/such/page', { ip }))).toMatchObject({ limit: 3, remaining: 0 });
    const refused = await b.api.get('/no/such/page', { ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 0, code: 'rate_limited' });
    expect((await redis.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
  });

  it('answers every request, uncounted, while Redis cannot be reached, and says so in the log', async () => {
    const server = await startTestServer({ ...LIMITS, REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_REDIS_PREFIX: prefix });
    try {
      for (let i = 0; i < 6; i += 1) {
        const res = await server.api.get('/no/such/page', { ip: '192.0.2.80' });
        expect(res.statusCode).toBe(404);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
      expect(server.logs.some((l) => l.level === 40 && String(l.msg).includes('Redis'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('security headers', () => {
  it('serve the API reference under a content security policy without upgrade-insecure-requests, and its page loads', async () => {
    const page = await t.server.api.get('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(page.headers['content-security-policy-report-only']).toBeUndefined();
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.headers['strict-transport-security']).toBeUndefined();
    // Everything the page loads is this server's own, and served (no inline script to allow).
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1] as string, 'http://x/docs/').pathname);
    expect(assets.length).toBeGreaterThan(3);
    for (const asset of assets) expect((await t.server.api.get(asset)).statusCode, asset).toBe(200);
    const init = await t.server.api.get('/docs/static/swagger-initializer.js');
    expect(init.body).toContain('validatorUrl');
  });

  it('put the same policy on the 404 page and the cheap headers on JSON answers', async () => {
    const missing = await t.server.api.get('/no/such/page');
    expect(String(missing.headers['content-security-policy'])).not.toContain('upgrade-insecure-requests');
    expect(String(missing.headers['content-security-policy'])).toContain("default-src 'self'");
    const json = await t.server.api.get('/healthz');
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    expect(json.headers['referrer-policy']).toBe('no-referrer');
    expect(json.headers['x-powered-by']).toBeUndefined();
    // helmet's whole set, on every answer (recorded once when the server starts).
    for (const answer of [json, await t.server.api.get('/healthz')]) {
      expect(answer.headers).toMatchObject({
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'origin-agent-cluster': '?1',
        'x-dns-prefetch-control': 'off',
        'x-download-options': 'noopen',
        'x-frame-options': 'SAMEORIGIN',
        'x-permitted-cross-domain-policies': 'none',
        'x-xss-protection': '0',
      });
      expect(answer.headers['content-security-policy']).toBe(missing.headers['content-security-policy']);
    }
  });
});

describe('body limits per route', () => {
  const json = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });

  it('take 256 KiB by default, 1 MiB for a customer, 32 KiB on the token calls, and close the connection when refusing', async () => {
    const user = await activeUser(t.server, await createClient(t.server));
    const small = await t.server.api.post('/api/v1.7/apps', json(300 * 1024), { token: user.token });
    expect(small.statusCode).toBe(413);
    expect(small.json()).toEqual({ status: 0, code: 'payload_too_large', msg: expect.any(String) });
    expect(small.headers.connection).toBe('close');

    const other = await activeUser(t.server, await createClient(t.server));
    // A project of theirs: a body to another's project is refused by membership before its size.
    const created = await t.server.api.post('/api/v1.7/apps', { name: 'Limits' }, { token: other.token });
    const appId = (created.json() as { data: { appId: string } }).data.appId;
    const customer = (bytes: number) =>
      t.server.api.post(
        `/api/v1.7/app/${appId}/member/${other.id}/customers`,
        { name: 'Ann', description: 'x'.repeat(bytes) },
        { token: other.token },
      );
    // Within the customer route's limit the request is read and answered by the route.
    const taken = await customer(300 * 1024);
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toMatchObject({ status: 1 });
    const refused = await customer(1100 * 1024);
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toMatchObject({ status: 0, code: 'payload_too_large' });

    const token = await t.server.api.post('/svcuser/oauth2/access_token', { grant_type: 'password', username: 'x'.repeat(40 * 1024) });
    expect(token.statusCode).toBe(413);
    expect(token.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('hold multipart bodies to the route limit too', async () => {
    const user = await activeUser(t.server, await createClient(t.server));
    const boundary = 'rapportboundary';
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const body = `${part('city', 'x'.repeat(200 * 1024))}${part('province', 'y'.repeat(200 * 1024))}--${boundary}--\r\n`;
    const res = await t.server.api.post('/api/v1.7/user/update', body, {
      token: user.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
    // The same fields, within the limit, are read.
    const fits = `${part('city', 'Paris')}--${boundary}--\r\n`;
    const ok = await t.server.api.post('/api/v1.7/user/update', fits, {
      token: user.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(ok.json()).toMatchObject({ status: 1, data: { city: 'Paris' } });
  });
});
