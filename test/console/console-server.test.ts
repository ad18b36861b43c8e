// lanes: sqlite
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeUser, createClient, uniquePhone } from '../helpers/fixtures.ts';
import { type TestServer, startTestServer } from '../helpers/harness.ts';

/**
 * What the server does for its web console: serving the built files, server-info, and the console's
 * session (its own public client, the refresh token in an HttpOnly cookie, the origin check), plus
 * token revocation and the customer list's filters the console uses.
 */

const ORIGIN = 'http://localhost:80';
/** inject's requests go to Host localhost:80. */
const fromConsole = { origin: ORIGIN };

let dir: string;
let server: TestServer;
const INDEX =
  '<!doctype html><title>console</title><script type="module" src="/console/assets/index-abc123.js"></script>' +
  Array.from({ length: 40 }, (_, i) => `<link rel="modulepreload" crossorigin href="/console/assets/chunk${i}-abc123.js">`).join('');
const BUNDLE = Array.from({ length: 400 }, (_, i) => `export const label${i} = 'customers page ${i}';`).join('\n');

/** Every cookie an answer sets. */
function cookiesOf(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  return String(Array.isArray(raw) ? raw[0] : raw);
}
const cookieValue = (setCookie: string) => setCookie.split(';')[0] as string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  // The page's compressed copies, as the build leaves them beside it.
  fs.writeFileSync(path.join(dir, 'index.html.br'), brotliCompressSync(INDEX));
  fs.writeFileSync(path.join(dir, 'index.html.gz'), gzipSync(INDEX));
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  // A bundle as the build leaves it: brotli and gzip copies beside it (console/vite.config.ts).
  fs.writeFileSync(path.join(dir, 'assets', 'pages-def456.js'), BUNDLE);
  fs.writeFileSync(path.join(dir, 'assets', 'pages-def456.js.br'), brotliCompressSync(BUNDLE));
  fs.writeFileSync(path.join(dir, 'assets', 'pages-def456.js.gz'), gzipSync(BUNDLE));
  server = await startTestServer({ CONSOLE_DIR: dir });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('serving the console', () => {
  it('answers the icon a browser asks for with every page, as /favicon.svg and /favicon.ico', async () => {
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      const res = await server.api.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      expect(res.body).toMatch(/^<svg /);
    }
  });

  it('redirects / to the console', async () => {
    const res = await server.api.get('/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console/');
  });

  it('answers index.html, not cached, for the console and every deep link under it', async () => {
    for (const url of ['/console', '/console/', '/console/p/abc/customers?keyword=x', '/console/sign-in']) {
      const res = await server.api.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('/console/assets/index-abc123.js');
      // The security headers and their content security policy are on the console's page too.
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
    }
  });

  it("sends the build's brotli or gzip copy of index.html to a browser that accepts it, and the file itself otherwise", async () => {
    const url = '/console/p/abc/customers';
    const br = await server.api.get(url, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^text\/html/);
    expect(br.headers['cache-control']).toBe('no-cache');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(INDEX);
    expect(br.rawPayload.length).toBeLessThan(INDEX.length / 4);
    for (const accept of ['gzip', 'br;q=0, gzip;q=0.5', 'GZIP']) {
      const gz = await server.api.get(url, { headers: { 'accept-encoding': accept } });
      expect(gz.headers['content-encoding'], accept).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(INDEX);
    }
    for (const accept of ['identity', 'br;q=0, gzip;q=0', '']) {
      const plain = await server.api.get(url, { headers: { 'accept-encoding': accept } });
      expect(plain.headers['content-encoding'], accept).toBeUndefined();
      expect(plain.body).toBe(INDEX);
    }
  });

  it('serves hashed assets for a year, immutable; a missing asset is the 404 page', async () => {
    const res = await server.api.get('/console/assets/index-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('console.log(1)');
    const missing = await server.api.get('/console/assets/gone-123.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect(missing.body).toContain('404 Not Found');
  });

  it("sends the build's brotli or gzip copy of an asset to a browser that accepts it, and the file itself otherwise", async () => {
    const url = '/console/assets/pages-def456.js';
    const br = await server.api.get(url, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(BUNDLE);
    expect(br.rawPayload.length).toBeLessThan(BUNDLE.length / 4);
    const gz = await server.api.get(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(BUNDLE);
    const plain = await server.api.get(url, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(BUNDLE);
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const doc = (await server.api.get('/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console') || p === '/')).toEqual([]);
    expect(Object.keys(doc.paths)).toContain('/api/v1.7/server-info');
    expect(Object.keys(doc.paths)).toContain('/svcuser/console/session');
  });

  it('starts without a build, says so in the log, and /console tells how to build it', async () => {
    const bare = await startTestServer({ CONSOLE_DIR: path.join(dir, 'not-built') });
    try {
      expect(bare.logs.some((l) => String(l.msg).includes('web console is not built'))).toBe(true);
      const res = await bare.api.get('/console/customers');
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('npm run build');
      expect((await bare.api.get('/healthz')).statusCode).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('server-info and the console session', () => {
  const phone = uniquePhone();
  let access = '';
  let cookie = '';

  it('server-info is public: version, time zone, and sign-up open while no user exists', async () => {
    const res = await server.api.get('/api/v1.7/server-info');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { status: number; data: { version: string; timeZone: string; signup: boolean } };
    expect(body.status).toBe(1);
    expect(body.data.timeZone).toBe('UTC');
    expect(body.data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.data.signup).toBe(true);
    expect(body.data).toMatchObject({ setupRequired: true });
    expect(body.data).toMatchObject({ publicBaseUrl: expect.stringMatching(/^https?:\/\//), publicBaseUrlIsLocal: expect.any(Boolean) });
  });

  it('refuses session calls without the console origin, or from another one', async () => {
    for (const headers of [{}, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
      const res = await server.api.post('/svcuser/console/signup', { phoneNum: phone, password: 'long enough pw' }, { headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
    // Nothing was written: sign-up is still open.
    expect(((await server.api.get('/api/v1.7/server-info')).json() as { data: { signup: boolean } }).data.signup).toBe(true);
  });

  it('signs the first user up: activated, the access token in the answer, the refresh token only in an HttpOnly cookie', async () => {
    const res = await server.api.post(
      '/svcuser/console/signup',
      { phoneNum: phone, password: 'long enough pw', nickname: 'First', setupCode: await server.services.accounts.setupCode() },
      { headers: fromConsole },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(res.headers['cache-control']).toBe('no-store');
    const set = cookieOf(res);
    expect(set).toMatch(/^rapport_console=[^;]+; Path=\/svcuser\/console\/session; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
    // Beside it, the marker the console's script reads to know there is a session to restore: nothing secret.
    expect(cookiesOf(res)).toContain('rapport_signed_in=1; Path=/console; Max-Age=2592000; SameSite=Strict');
    access = String(body.access_token);
    cookie = cookieValue(set);
    // The first account, made with the setup code, is a server administrator: the console asks, and shows the administration pages.
    expect((await server.api.get('/api/v1.7/admin/me', { token: access })).json()).toEqual({ status: 1, data: { admin: true } });
    // Activated: a business endpoint answers.
    const apps = await server.api.get('/api/v1.7/my-apps', { token: access });
    expect(apps.json()).toMatchObject({ status: 1, data: [] });
  });

  it('closes sign-up once a user exists (ALLOW_SIGNUP is off)', async () => {
    expect(((await server.api.get('/api/v1.7/server-info')).json() as { data: { signup: boolean } }).data.signup).toBe(false);
    const res = await server.api.post(
      '/svcuser/console/signup',
      { phoneNum: uniquePhone(), password: 'long enough pw' },
      { headers: fromConsole },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'signup_closed' });
  });

  it('signs in with the password and refreshes with the cookie alone', async () => {
    const wrong = await server.api.post(
      '/svcuser/console/session',
      { username: phone, password: 'not the password' },
      { headers: fromConsole },
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_grant' });
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const res = await server.api.post(
      '/svcuser/console/session',
      { username: phone, password: 'long enough pw' },
      { headers: fromConsole },
    );
    expect(res.statusCode).toBe(200);
    cookie = cookieValue(cookieOf(res));
    const refreshed = await server.api.post('/svcuser/console/session/refresh', undefined, { headers: { ...fromConsole, cookie } });
    expect(refreshed.statusCode).toBe(200);
    const token = (refreshed.json() as { access_token: string }).access_token;
    expect(token).not.toBe(access);
    expect((await server.api.get('/api/v1.7/my-apps', { token })).statusCode).toBe(200);
    access = token;

    const none = await server.api.post('/svcuser/console/session/refresh', undefined, { headers: fromConsole });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('marks the cookie Secure when the console was reached over HTTPS', async () => {
    const behindTls = await startTestServer({ TRUST_PROXY: 'true' });
    try {
      const res = await behindTls.api.post(
        '/svcuser/console/signup',
        { phoneNum: uniquePhone(), password: 'long enough pw', setupCode: await behindTls.services.accounts.setupCode() },
        { headers: { origin: 'https://rapport.example', host: 'rapport.example', 'x-forwarded-proto': 'https' } },
      );
      expect(res.statusCode).toBe(200);
      expect(cookieOf(res)).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await behindTls.close();
    }
  });

  it('lets exactly one of 20 concurrent first sign-ups on a new server make an account; the others get signup_closed', async () => {
    const fresh = await startTestServer();
    try {
      const setupCode = await fresh.services.accounts.setupCode();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fresh.api.post(
            '/svcuser/console/signup',
            { phoneNum: uniquePhone(), password: 'long enough pw', setupCode },
            { headers: fromConsole },
          ),
        ),
      );
      const made = answers.filter((res) => res.statusCode === 200);
      expect(made).toHaveLength(1);
      for (const res of answers.filter((r) => r.statusCode !== 200)) {
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'signup_closed' });
      }
      const users = await fresh.ctx.database.db.selectFrom('users').select('id').execute();
      expect(users).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it("the console's client cannot be used on the token calls (it has no secret)", async () => {
    for (const basic of ['console:', 'console:x']) {
      const res = await server.api.post(
        '/svcuser/oauth2/access_token',
        { grant_type: 'password', username: phone, password: 'long enough pw' },
        { form: true, headers: { authorization: `Basic ${Buffer.from(basic).toString('base64')}` } },
      );
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_client' });
    }
  });

  it('signs out: the refresh token and the access token stop working, the cookie is cleared', async () => {
    const res = await server.api.delete('/svcuser/console/session', { token: access, headers: { ...fromConsole, cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(cookieOf(res)).toMatch(/^rapport_console=; Path=\/svcuser\/console\/session; Max-Age=0;/);
    expect(cookiesOf(res)).toContain('rapport_signed_in=; Path=/console; Max-Age=0; SameSite=Strict');
    expect((await server.api.get('/api/v1.7/my-apps', { token: access })).statusCode).toBe(403);
    const again = await server.api.post('/svcuser/console/session/refresh', undefined, { headers: { ...fromConsole, cookie } });
    expect(again.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('token revocation (RFC 7009)', () => {
  it('revokes a token of the calling client, and answers the same for an unknown one', async () => {
    const client = await createClient(server);
    const other = await createClient(server, 'other');
    const user = await activeUser(server, client);
    const revoke = (token: string, basic: string, hint?: string) =>
      server.api.post(
        '/svcuser/oauth2/revoke',
        { token, ...(hint ? { token_type_hint: hint } : {}) },
        { form: true, headers: { authorization: basic } },
      );

    // Another client's call changes nothing.
    expect((await revoke(user.token, other.basic)).json()).toEqual({});
    expect((await server.api.get('/api/v1.7/my-apps', { token: user.token })).statusCode).toBe(200);

    expect((await revoke(user.token, client.basic)).json()).toEqual({});
    expect((await server.api.get('/api/v1.7/my-apps', { token: user.token })).statusCode).toBe(403);

    expect((await revoke(user.refreshToken, client.basic, 'refresh_token')).json()).toEqual({});
    const refreshed = await server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'refresh_token', refresh_token: user.refreshToken },
      { form: true, headers: { authorization: client.basic } },
    );
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });

    expect((await revoke('no-such-token', client.basic)).json()).toEqual({});
    const missing = await server.api.post('/svcuser/oauth2/revoke', {}, { form: true, headers: { authorization: client.basic } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const noClient = await server.api.post('/svcuser/oauth2/revoke', { token: user.refreshToken }, { form: true });
    expect(noClient.statusCode).toBe(400);
  });
});

describe("the customer list's filters", () => {
  it('filters by keyword (name, company, mobile, e-mail; any case) and by group, within what the caller may see', async () => {
    const client = await createClient(server);
    const master = await activeUser(server, client);
    const created = await server.api.post('/api/v1.7/apps', { name: 'Filters' }, { token: master.token });
    const appId = (created.json() as { data: { appId: string } }).data.appId;
    const group = await server.api.post(
      `/api/v1.7/app/${appId}/customer-groups`,
      { name: 'Hot', svc_user_id: master.id },
      { token: master.token },
    );
    const groupId = (group.json() as { data: { id: string } }).data.id;
    const add = async (fields: Record<string, unknown>) => {
      const res = await server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customers`, fields, { token: master.token });
      expect(res.json().status).toBe(1);
    };
    await add({ name: 'Ada Lovelace', company: 'Analytical Engines', phone: '13800000001' });
    await add({ name: 'Grace Hopper', email: 'Grace@Navy.example', group_id: groupId });
    await add({ name: '王小明', company: '百分比%公司' });
    const list = async (query: Record<string, string>) => {
      const res = await server.api.get(`/api/v1.7/app/${appId}/member/all/customers`, { token: master.token, query });
      const body = res.json() as { status: number; data: { name: string }[] };
      expect(body.status).toBe(1);
      return body.data.map((c) => c.name);
    };
    expect(await list({ keyword: 'ada' })).toEqual(['Ada Lovelace']);
    expect(await list({ keyword: 'ENGINES' })).toEqual(['Ada Lovelace']);
    expect(await list({ keyword: '0000001' })).toEqual(['Ada Lovelace']);
    expect(await list({ keyword: 'navy.EXAMPLE' })).toEqual(['Grace Hopper']);
    expect(await list({ keyword: '小明' })).toEqual(['王小明']);
    // LIKE's wildcards are taken literally.
    expect(await list({ keyword: '%' })).toEqual(['王小明']);
    expect(await list({ group_id: groupId })).toEqual(['Grace Hopper']);
    expect(await list({ group_id: '' })).toEqual(['王小明', 'Ada Lovelace']);
    expect(await list({ group_id: groupId, keyword: 'ada' })).toEqual([]);
    expect(await list({ keyword: 'a', count: '1', start_index: '1' })).toHaveLength(1);
  });
});
