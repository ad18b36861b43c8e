// lanes: sqlite
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeBodyLimits } from '../../src/http/body-limits.ts';
import { type TestUser, activeUser, createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';

const t = useTestServer();
const KB = 1024;
const MB = 1024 * 1024;

/** `METHOD /path/{kebab-param}` as docs/operations.md writes a route. */
const documented = (route: string) =>
  route.replace(/:(\w+)/g, (_, name: string) => `{${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}}`);

describe('every route sizes its body', () => {
  it('gives its own limit, and the one table of docs/operations.md ("Body sizes") lists exactly those routes', () => {
    const limits = routeBodyLimits(t.server.app);
    expect(limits.size).toBeGreaterThan(40);
    const unsized = [...limits].filter(([, limit]) => limit === undefined).map(([route]) => route);
    expect(unsized).toEqual([]);
    const doc = fs.readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Body sizes'), doc.indexOf('### Security headers'));
    const rows = [...section.matchAll(/^\| `([A-Z]+ [^`]+)`/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual([...limits.keys()].map(documented).sort());
  });
});

describe('bodies of callers who may not send them, and bodies over their limits', () => {
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let appId = '';
  let base = '';

  beforeAll(async () => {
    const client = await createClient(t.server);
    [owner, member, stranger] = [
      await activeUser(t.server, client),
      await activeUser(t.server, client),
      await activeUser(t.server, client),
    ];
    const created = await t.server.api.post('/api/v1.7/apps', { name: 'Bodies' }, { token: owner.token });
    appId = (created.json() as { data: { appId: string } }).data.appId;
    const added = await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: member.id }, { token: owner.token });
    expect(added.json()).toMatchObject({ status: 1 });
    base = await t.server.app.listen({ port: 0, host: '127.0.0.1' });
  });

  const multipart = (fields: [string, string][], boundary = 'b0undary') =>
    fields.map(([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
    `--${boundary}--\r\n`;
  const multipartType = 'multipart/form-data; boundary=b0undary';

  it("refuses a non-member's body by membership before parsing it: a broken multipart gets the non-member's answer", async () => {
    const broken = '--b0undary\r\ncontent-disposition: form-data; name="encoding"\r\n\r\nutf8';
    const headers = { 'content-type': multipartType };
    const asStranger = await t.server.api.post(`/api/v1.7/app/${appId}/customer-import/preview`, broken, {
      token: stranger.token,
      headers,
    });
    expect(asStranger.statusCode).toBe(403);
    expect(asStranger.json()).toMatchObject({ error: 'forbidden' });
    expect(asStranger.headers.connection).toBe('close');
    // A member's is parsed, and found broken.
    const asMember = await t.server.api.post(`/api/v1.7/app/${appId}/customer-import/preview`, broken, { token: member.token, headers });
    expect(asMember.statusCode).not.toBe(403);
    // Routes of Masters and Admins refuse a Sales member before the body too, with the route's own answer.
    const hook = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, '{"url":', { token: member.token });
    expect(hook.statusCode).toBe(403);
    expect(hook.json()).toMatchObject({ error: 'forbidden' });
    // A project that does not exist: the answer of any project route.
    const none = await t.server.api.post('/api/v1.7/app/no-such-project/customer-import/preview', broken, { token: member.token, headers });
    expect(none.json()).toMatchObject({ status: 0, code: 'app_not_found' });
  });

  it("holds an upload route's text fields to the few short ones it takes (413 payload_too_large)", async () => {
    const url = `/api/v1.7/app/${appId}/customer-import/preview`;
    const headers = { 'content-type': multipartType };
    const long = await t.server.api.post(url, multipart([['encoding', 'x'.repeat(2 * KB)]]), { token: member.token, headers });
    expect(long.statusCode).toBe(413);
    expect(long.json()).toMatchObject({ status: 0, code: 'payload_too_large', msg: "The field 'encoding' is longer than 1024 bytes" });
    const many = Array.from({ length: 6 }, (_, i): [string, string] => [`f${i}`, 'x']);
    const tooMany = await t.server.api.post(url, multipart(many), { token: member.token, headers });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
    // Within them, the request goes on to the route (which finds no file).
    const fine = await t.server.api.post(url, multipart([['encoding', 'utf8']]), { token: member.token, headers });
    expect(fine.json()).toMatchObject({ status: 0, code: 'import_file_invalid' });
  });

  it('answers a body over its limit with a 413 a Node fetch reads, sized or chunked; a chunked multipart with a readable 411', async () => {
    const url = `${base}/api/v1.7/app/${appId}/member/${member.id}/customers`;
    const headers = { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' };
    const big = JSON.stringify({ name: 'Big', note: 'x'.repeat(3 * MB) });
    const chunks = (text: string) =>
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < text.length; i += 256 * KB) controller.enqueue(new TextEncoder().encode(text.slice(i, i + 256 * KB)));
          controller.close();
        },
      });
    const sized = await fetch(url, { method: 'POST', headers, body: big });
    const chunked = await fetch(url, { method: 'POST', headers, body: chunks(big), duplex: 'half' } as RequestInit);
    for (const res of [sized, chunked]) {
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      expect(await res.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
    }
    const upload = await fetch(`${base}/api/v1.7/app/${appId}/customer-import/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': multipartType },
      body: chunks(
        multipart([
          ['encoding', 'utf8'],
          ['pad', 'x'.repeat(MB)],
        ]),
      ),
      duplex: 'half',
    } as RequestInit);
    expect(upload.status).toBe(411);
    expect(await upload.json()).toMatchObject({ status: 0, code: 'length_required' });
    // A refused token with a body is read as well.
    const refused = await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer nope' }, body: big });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'access_denied' });
  });
});
