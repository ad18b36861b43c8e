// lanes: sqlite
import { describe, expect, it } from 'vitest';
import { PUBLIC_PAGES_TAG } from '../../src/http/public-pages.ts';
import { activeUser, createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';

const t = useTestServer();

describe('HTTP conventions', () => {
  it('answers unknown URIs with an HTML 404 page', async () => {
    const res = await t.server.api.get('/no/such/path');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1>404 Not Found</h1>');
  });

  it('answers a known path with the wrong method with the same HTML 404', async () => {
    const res = await t.server.api.delete('/svcuser/oauth2/access_token');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('serves JSON as application/json; charset=utf-8', async () => {
    const res = await t.server.api.get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers 403 access_denied on business endpoints without a token, before reading the body', async () => {
    const res = await t.server.api.post('/api/v1.7/user/update', '{not json', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Bearer token not found' });
  });

  it('maps invalid parameters to the Bad Request envelope naming the parameter', async () => {
    const client = await createClient(t.server);
    const user = await activeUser(t.server, client);
    const res = await t.server.api.post('/api/v1.7/user/update', { user_id: 'abc' }, { token: user.token, form: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 0, code: 'Bad Request', msg: expect.stringContaining('user_id') });
    const huge = await t.server.api.post('/api/v1.7/user/update', { user_id: '1e309' }, { token: user.token, form: true });
    expect(huge.json().code).toBe('Bad Request');
  });

  it('answers a path parameter too long for the router, or a URL that does not decode, with the Bad Request envelope', async () => {
    for (const url of [`/api/v1.7/customer/${'x'.repeat(300)}/detail`, '/api/v1.7/customer/%E0%A4%A/detail']) {
      const res = await t.server.api.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.json()).toMatchObject({ status: 0, code: 'Bad Request', msg: expect.stringMatching(/^Malformed request/) });
    }
  });

  it('never answers malformed bodies with a 5xx', async () => {
    const client = await createClient(t.server);
    const user = await activeUser(t.server, client);
    const cases: { body: string; type: string }[] = [
      { body: '{"name": ', type: 'application/json' },
      { body: '[1,2,3]', type: 'application/json' },
      { body: '"just a string"', type: 'application/json' },
      { body: 'null', type: 'application/json' },
      { body: '{"name": {"nested": true}}', type: 'application/json' },
      { body: '{"__proto__": {"x": 1}}', type: 'application/json' },
      { body: 'name=%E0%A4%A', type: 'application/x-www-form-urlencoded' },
      { body: '--xx\r\nbroken', type: 'multipart/form-data; boundary=xx' },
      { body: '<xml/>', type: 'application/xml' },
      { body: '\u0000\u0001', type: 'text/plain' },
    ];
    for (const c of cases) {
      const res = await t.server.api.post('/api/v1.7/user/update', c.body, { token: user.token, headers: { 'content-type': c.type } });
      expect(res.statusCode, `${c.type} ${JSON.stringify(c.body)}`).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/json/);
    }
  });

  it('answers an oversized body with 413 and a JSON error', async () => {
    const client = await createClient(t.server);
    const user = await activeUser(t.server, client);
    const res = await t.server.api.post('/api/v1.7/user/update', { name: 'x'.repeat(1024 * 1024 + 10) }, { token: user.token });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ status: 0, code: 'payload_too_large', msg: expect.any(String) });
  });

  it('merges form, multipart, JSON and query parameters, the body winning', async () => {
    const client = await createClient(t.server);
    const user = await activeUser(t.server, client);
    const q = await t.server.api.post(
      '/api/v1.7/user/update?city=FromQuery&name=QueryName',
      { name: 'BodyName' },
      { token: user.token, form: true },
    );
    expect(q.json().data).toMatchObject({ city: 'FromQuery', name: 'BodyName' });
    const boundary = 'rapportboundary';
    const multipart = [`--${boundary}`, 'Content-Disposition: form-data; name="company"', '', 'Multipart Co', `--${boundary}--`, ''].join(
      '\r\n',
    );
    const m = await t.server.api.post('/api/v1.7/user/update', multipart, {
      token: user.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(m.json().data.company).toBe('Multipart Co');
    const j = await t.server.api.post('/api/v1.7/user/update', { industry: 'JSON' }, { token: user.token });
    expect(j.json().data.industry).toBe('JSON');
  });

  it('answers token endpoint input errors in the OAuth shape', async () => {
    const client = await createClient(t.server);
    const res = await t.server.api.post('/svcuser/oauth2/register', '{bad json', {
      headers: { authorization: client.basic, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('serves an OpenAPI 3.1 document and an offline API reference page', async () => {
    const doc = await t.server.api.get('/openapi.json');
    expect(doc.statusCode).toBe(200);
    const body = doc.json();
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toContain('/svcuser/oauth2/access_token');
    // The pages, scripts and beacons that links, the site snippet and campaign mail reach are listed,
    // with no token asked, under a tag of their own.
    const publicPaths = [
      '/l/{token}',
      '/l/{token}/page/{n}',
      '/l/{token}/events',
      '/l/{token}/form',
      '/t.js',
      '/t/collect',
      '/m/o/{token}',
      '/m/c/{token}/{n}',
      '/m/u/{token}',
    ];
    for (const p of publicPaths) {
      expect(Object.keys(body.paths), p).toContain(p);
      for (const op of Object.values(body.paths[p] as Record<string, { tags: string[]; security: unknown[] }>)) {
        expect(op.tags, p).toEqual([PUBLIC_PAGES_TAG]);
        expect(op.security, p).toEqual([]);
      }
    }
    const page = await t.server.api.get('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger');
    const asset = await t.server.api.get('/docs/static/swagger-ui-bundle.js');
    expect(asset.statusCode).toBe(200);
    expect(page.body).not.toMatch(/https?:\/\/(?!localhost)[a-z]+\.[a-z]+\/[^"']*\.js/);
  });

  it('keeps tokens, passwords and secrets out of every log line', async () => {
    const client = await createClient(t.server);
    const user = await activeUser(t.server, client, { password: 'sup3r-secret-pw' });
    await t.server.api.get('/svcuser/oauth2/getUserInfoByAccessToken', { query: { access_token: user.token } });
    await t.server.api.get(`/no/such?access_token=${user.token}`);
    await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'refresh_token', refresh_token: user.refreshToken, client_id: client.client_id, client_secret: client.client_secret },
      { form: true },
    );
    await t.server.api.post(
      `/svcuser/oauth2/access_token?password=sup3r-secret-pw&client_secret=${client.client_secret}`,
      {},
      { form: true },
    );
    const raw = t.server.rawLogs();
    expect(raw).toContain('[REDACTED]');
    for (const secret of [user.token, user.refreshToken, 'sup3r-secret-pw', client.client_secret]) {
      expect(raw).not.toContain(secret);
    }
  });
});
