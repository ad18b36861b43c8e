// lanes: sqlite postgres
import { createCanvas } from '@napi-rs/canvas';
import type { LightMyRequestResponse as Response } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { multipart } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { type LinkData, MOBILE_UA, createLink, madeLink, renderedFile } from '../../helpers/links.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';
import { PUBLIC_PAGES_TAG } from '../../../src/http/public-pages.ts';

/**
 * A project's own share domain (docs/projects.md, "Share domain"): set and validated by the project
 * edit, unique across projects; a request to it reaches that project's viewer, mail tracking, site
 * snippet and logo and nothing else; the project's addresses name it; `/tls/ask` says whether a
 * domain is claimed.
 */
const BASE = 'https://rapport.example';
const A_DOMAIN = 'share.a-corp.example';
const B_DOMAIN = 'links.b-corp.example';
const smtpPort = await freePort();
const t = useTestServer({
  PUBLIC_BASE_URL: BASE,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'Campaigns <mail@rapport.example>',
  MAIL_RATE_PER_SECOND: '1000',
  MAIL_MACHINE_OPEN_SECONDS: '0',
});

let box: Awaited<ReturnType<typeof startMailbox>>;
let p: HistoryProject;
let bAppId: string;
let aWeb: LinkData;
let aFile: LinkData;
let bWeb: LinkData;

/** A request as a browser at `host` sends it (no token unless given). */
function onHost(host: string, method: 'GET' | 'POST' | 'HEAD', url: string, opts: { token?: string; body?: unknown; ip?: string } = {}) {
  const headers: Record<string, string> = { host, 'user-agent': MOBILE_UA };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  return t.server.app.inject({
    method,
    url,
    headers,
    remoteAddress: opts.ip ?? '198.51.100.7',
    ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}),
  });
}

const edit = (appId: string, token: string, body: Record<string, unknown>) => t.server.api.post(`/api/v1.7/app/${appId}`, body, { token });
const detail = async (appId: string, token: string) =>
  ((await t.server.api.get(`/api/v1.7/app/${appId}`, { token })).json() as { data: { shareDomain: string } }).data;
/** The 404 of an unknown link, without its per-page nonce. */
const page404 = (res: Response) => ({ status: res.statusCode, body: res.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, 'NONCE') });

beforeAll(async () => {
  box = await startMailbox(smtpPort);
  p = await historyProject(t.server);
  const b = await t.server.api.post('/api/v1.7/apps', { name: 'B corp' }, { token: p.master.token });
  bAppId = (b.json() as { data: { appId: string } }).data.appId;
  aWeb = await madeLink(t.server, p.appId, p.master.token, { name: 'A page', type: 2, website: 'https://www.a-corp.example/', embed: 1 });
  bWeb = await madeLink(t.server, bAppId, p.master.token, { name: 'B page', type: 2, website: 'https://www.b-corp.example/', embed: 1 });
  const file = await renderedFile(t.server, p, p.master.token);
  aFile = await madeLink(t.server, p.appId, p.master.token, { name: 'A deck', file_id: file });
});
afterAll(async () => {
  await box.close();
});

describe('setting the share domain', () => {
  it('refuses what is not a host name of its own, and keeps a valid one lower-case, IDN as punycode', async () => {
    const refused = [
      'https://x.example',
      'x.example/path',
      'x.example:8443',
      'user@x.example',
      '203.0.113.9',
      '[2001:db8::1]',
      '0x7f.1',
      'localhost',
      'printer.localhost',
      'intranet',
      'bad_label.example',
      'x..example',
      '-x.example',
      'rapport.example',
      'RAPPORT.Example.',
      `${`${'a'.repeat(63)}.`.repeat(4)}example`,
    ];
    for (const share_domain of refused) {
      const res = await edit(p.appId, p.master.token, { share_domain });
      expect(res.statusCode).toBe(200);
      expect(res.json(), share_domain).toMatchObject({ status: 0, code: 'share_domain_invalid' });
    }
    expect((await detail(p.appId, p.master.token)).shareDomain).toBe('');

    expect((await edit(p.appId, p.master.token, { share_domain: 'Bücher.Example' })).json()).toEqual({ status: 1, data: true });
    expect((await detail(p.appId, p.sales.token)).shareDomain).toBe('xn--bcher-kva.example');
    expect((await edit(p.appId, p.admin.token, { share_domain: '' })).json()).toEqual({ status: 1, data: true });
    expect((await detail(p.appId, p.master.token)).shareDomain).toBe('');
    expect((await edit(p.appId, p.admin.token, { share_domain: ' Share.A-Corp.Example. ' })).json()).toEqual({ status: 1, data: true });
    expect((await detail(p.appId, p.master.token)).shareDomain).toBe(A_DOMAIN);
  });

  it('only the Master and Admins set it, and the edit is audited', async () => {
    const bySales = await edit(p.appId, p.sales.token, { share_domain: 'sales.example' });
    expect(bySales.statusCode).toBe(403);
    expect((await edit(p.appId, p.outsider.token, { share_domain: 'outsider.example' })).statusCode).toBe(403);
    expect((await detail(p.appId, p.master.token)).shareDomain).toBe(A_DOMAIN);
    const log = (await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token, query: { count: 100 } })).json() as {
      data: { action: string; detail: Record<string, unknown> }[];
    };
    expect(log.data.filter((e) => e.action === 'project.edit' && 'shareDomain' in e.detail).map((e) => e.detail.shareDomain)).toEqual([
      A_DOMAIN,
      '',
      'xn--bcher-kva.example',
    ]);
  });

  it('two projects cannot claim one domain, in any case', async () => {
    for (const share_domain of [A_DOMAIN, 'SHARE.a-corp.EXAMPLE', `${A_DOMAIN}.`]) {
      const res = await edit(bAppId, p.master.token, { share_domain });
      expect(res.statusCode).toBe(200);
      expect(res.json(), share_domain).toMatchObject({ status: 0, code: 'share_domain_taken' });
    }
    expect((await edit(bAppId, p.master.token, { share_domain: B_DOMAIN })).json()).toEqual({ status: 1, data: true });
    // Setting the domain a project already has changes nothing and is no conflict.
    expect((await edit(bAppId, p.master.token, { share_domain: B_DOMAIN, name: 'B corp' })).json()).toEqual({ status: 1, data: true });
    expect((await detail(bAppId, p.master.token)).shareDomain).toBe(B_DOMAIN);
  });
});

describe('a request to a share domain', () => {
  it("serves that project's links: the page, its page images, the legacy address", async () => {
    const page = await onHost(A_DOMAIN, 'GET', `/l/${aWeb.shareToken}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('www.a-corp.example');
    const deck = await onHost(A_DOMAIN, 'GET', `/l/${aFile.shareToken}`);
    expect(deck.statusCode).toBe(200);
    const script = /src="(\/assets\/[^"]+)"/.exec(deck.body)?.[1];
    expect(script).toBeDefined();
    expect((await onHost(A_DOMAIN, 'GET', script as string)).statusCode).toBe(200);
    const image = await onHost(A_DOMAIN, 'GET', `/l/${aFile.shareToken}/page/1`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);
    const legacy = await onHost(A_DOMAIN, 'GET', `/link/${aWeb.id}?share_token=${aWeb.shareToken}`);
    expect(legacy.statusCode).toBe(302);
    expect(legacy.headers.location).toBe(`/l/${aWeb.shareToken}`);
  });

  it("answers another project's link as an unknown one", async () => {
    const unknown = page404(await onHost(A_DOMAIN, 'GET', '/l/AAAAAAAAAAAAAAAAAAAAAA'));
    expect(unknown.status).toBe(404);
    expect(page404(await onHost(A_DOMAIN, 'GET', `/l/${bWeb.shareToken}`))).toEqual(unknown);
    expect(page404(await onHost(B_DOMAIN, 'GET', `/l/${aFile.shareToken}`))).toEqual(unknown);
    expect((await onHost(B_DOMAIN, 'GET', `/l/${aFile.shareToken}/page/1`)).statusCode).toBe(404);
    expect((await onHost(B_DOMAIN, 'GET', `/link/${aWeb.id}?share_token=${aWeb.shareToken}`)).statusCode).toBe(404);
    const beacon = await onHost(B_DOMAIN, 'POST', `/l/${aFile.shareToken}/events`, { body: { type: 'open', seq: 1, token: 'x' } });
    expect(beacon.statusCode).toBe(400);
    expect(beacon.json()).toMatchObject({ code: 'link_unavailable' });
    const form = await onHost(B_DOMAIN, 'POST', `/l/${aWeb.shareToken}/form`, { body: { email: 'ada@example.com' } });
    expect(form.json()).toMatchObject({ code: 'link_unavailable' });
  });

  it('answers 404 to the API, the console, the docs and health, whatever the token', async () => {
    for (const url of [
      `/api/v1.7/app/${p.appId}`,
      '/api/v1.7/my-apps',
      '/console',
      '/console/',
      '/docs',
      '/openapi.json',
      '/healthz',
      '/',
    ]) {
      const res = await onHost(A_DOMAIN, 'GET', url, { token: p.master.token });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/text\/html/);
      expect(res.body, url).not.toContain(p.appId);
      expect(res.body, url).not.toContain('/docs');
    }
    const post = await onHost(A_DOMAIN, 'POST', `/api/v1.7/app/${p.appId}`, { token: p.master.token, body: { name: 'Hijack' } });
    expect(post.statusCode).toBe(404);
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.master.token })).json().data.name).toBe('Histories');
  });

  it('answers every public page of its project there but the few kept to the server: a new page must choose', async () => {
    const doc = (await t.server.api.get('/openapi.json')).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    // The one public page a share domain does not serve: the mail provider's webhook (the operator's
    // TLS question is not in the document, and is refused there as its own test shows).
    const kept = new Set(['POST /hooks/inbound-mail/{token}']);
    // The domain the earlier tests claimed for the project: on no share domain every page is served.
    expect((await detail(p.appId, p.master.token)).shareDomain).toBe(A_DOMAIN);
    const refusal = (await onHost(A_DOMAIN, 'GET', '/no-such-page')).body;
    const values: Record<string, string> = { token: aFile.shareToken, appId: p.appId, linkId: aFile.id, n: '1' };
    const seen: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!op.tags?.includes(PUBLIC_PAGES_TAG) || method === 'head') continue;
        const name = `${method.toUpperCase()} ${path}`;
        seen.push(name);
        const url = path.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? 'x');
        const res = await onHost(A_DOMAIN, method.toUpperCase() as 'GET' | 'POST', url, method === 'post' ? { body: {} } : {});
        if (kept.has(name)) expect(res.body, name).toBe(refusal);
        else expect(res.body === refusal, `${name} is refused on a share domain`).toBe(false);
      }
    }
    expect(seen).toEqual(expect.arrayContaining(['GET /l/{token}', 'GET /l/{token}/doc/{fileId}/page/{n}', ...kept]));
  });

  it("serves its own project's logo only", async () => {
    const canvas = createCanvas(8, 8);
    canvas.getContext('2d').fillRect(0, 0, 8, 8);
    const body = multipart({ filename: 'logo.png', bytes: canvas.toBuffer('image/png'), contentType: 'image/png' });
    const up = await t.server.api.post(`/api/v1.7/app/${p.appId}/logo`, body.payload, {
      token: p.master.token,
      headers: { 'content-type': body.contentType },
    });
    const url = (up.json() as { data: { url: string } }).data.url;
    const path = new URL(url).pathname;
    expect((await onHost(A_DOMAIN, 'GET', path)).statusCode).toBe(200);
    expect((await onHost(B_DOMAIN, 'GET', path)).statusCode).toBe(404);
  });

  it("keeps serving everything on the server's own host, links of projects with a share domain included", async () => {
    expect((await onHost('rapport.example', 'GET', `/l/${aWeb.shareToken}`)).statusCode).toBe(200);
    expect((await onHost('rapport.example', 'GET', `/l/${bWeb.shareToken}`)).statusCode).toBe(200);
    expect((await onHost('RAPPORT.example:443', 'GET', `/api/v1.7/app/${p.appId}`, { token: p.master.token })).json().status).toBe(1);
    // An unknown host is served as before.
    expect((await onHost('10.0.0.5:8080', 'GET', `/api/v1.7/app/${p.appId}`, { token: p.master.token })).json().status).toBe(1);
    expect((await onHost('unclaimed.example', 'GET', `/l/${aWeb.shareToken}`)).statusCode).toBe(200);
  });

  it('looks the host up in memory: no read of the share domains per request once they are known', async () => {
    const reader = t.server.ctx.database.reader;
    const all = reader.all.bind(reader);
    let reads = 0;
    const spy = vi.spyOn(reader, 'all').mockImplementation((q, ...args) => {
      if (q.name === 'appShareDomains') reads += 1;
      return all(q, ...args);
    });
    try {
      // Settled first: on PostgreSQL the notification of an earlier commit (the tests before) arrives
      // after it, and empties the map once more.
      const settle = async () => {
        for (let i = 0; i < 20; i += 1) {
          const before = reads;
          await new Promise((r) => setTimeout(r, 50));
          await onHost(A_DOMAIN, 'GET', `/l/${aWeb.shareToken}`);
          if (reads === before) return;
        }
      };
      await settle();
      reads = 0;
      for (const host of [A_DOMAIN, B_DOMAIN, 'rapport.example', 'unclaimed.example', '10.0.0.9', A_DOMAIN.toUpperCase()]) {
        await onHost(host, 'GET', `/l/${aWeb.shareToken}`);
        await onHost(host, 'GET', '/api/v1.7/my-apps', { token: p.master.token });
      }
      expect(reads).toBe(0);
      // A project edit empties the map (in every process): the next request reads it once again.
      await edit(p.appId, p.master.token, { description: 'Edited' });
      await settle();
      // Once here; on PostgreSQL perhaps twice (the edit's own notification, arriving after it).
      expect(reads).toBeGreaterThanOrEqual(1);
      expect(reads).toBeLessThanOrEqual(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('follows an edit at once: a domain cleared or moved stops answering for the project', async () => {
    const other = 'moving.b-corp.example';
    expect((await edit(bAppId, p.master.token, { share_domain: other })).json().status).toBe(1);
    expect((await onHost(other, 'GET', `/l/${bWeb.shareToken}`)).statusCode).toBe(200);
    // The old domain is an unknown host again: served as the server's.
    expect((await onHost(B_DOMAIN, 'GET', `/api/v1.7/app/${bAppId}`, { token: p.master.token })).json().status).toBe(1);
    expect((await edit(bAppId, p.master.token, { share_domain: B_DOMAIN })).json().status).toBe(1);
    expect((await onHost(other, 'GET', `/api/v1.7/app/${bAppId}`, { token: p.master.token })).json().status).toBe(1);
    expect((await onHost(B_DOMAIN, 'GET', `/api/v1.7/app/${bAppId}`, { token: p.master.token })).statusCode).toBe(404);
  });
});

describe("the project's addresses", () => {
  it("a link's url is on the share domain; a project without one keeps PUBLIC_BASE_URL", async () => {
    const made = await createLink(
      t.server,
      p.appId,
      p.master.token,
      { name: 'With url', type: 3, website: 'https://a-corp.example/' },
      true,
    );
    const link = (made.json() as { data: LinkData }).data;
    expect(link.url).toBe(`https://${A_DOMAIN}/l/${link.shareToken}`);
    const listed = await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token: p.master.token, query: { with_url: 1, count: 100 } });
    const urls = (listed.json() as { data: LinkData[] }).data.map((l) => l.url);
    expect(urls).toContain(`https://${A_DOMAIN}/l/${aWeb.shareToken}`);
    expect(urls.every((u) => u?.startsWith(`https://${A_DOMAIN}/l/`))).toBe(true);

    const c = await t.server.api.post('/api/v1.7/apps', { name: 'No domain' }, { token: p.master.token });
    const plainApp = (c.json() as { data: { appId: string } }).data.appId;
    const plain = await createLink(t.server, plainApp, p.master.token, { name: 'Plain', type: 3, website: 'https://x.example/' }, true);
    const plainLink = (plain.json() as { data: LinkData }).data;
    expect(plainLink.url).toBe(`${BASE}/l/${plainLink.shareToken}`);
  });

  it("the site snippet loads from the share domain, and collects there only with the project's key", async () => {
    const site = await t.server.api.get(`/api/v1.7/app/${p.appId}/site`, { token: p.master.token });
    const settings = (site.json() as { data: { snippet: string; siteKey: string } }).data;
    expect(settings.snippet).toContain(`src="https://${A_DOMAIN}/t.js"`);
    expect((await onHost(A_DOMAIN, 'GET', '/t.js')).statusCode).toBe(200);
    const bSite = await t.server.api.get(`/api/v1.7/app/${bAppId}/site`, { token: p.master.token });
    const bKey = (bSite.json() as { data: { siteKey: string } }).data.siteKey;
    await edit(bAppId, p.master.token, { site_origins: 'https://www.b-corp.example' });
    const collect = (host: string) =>
      t.server.app.inject({
        method: 'POST',
        url: `/t/collect?k=${bKey}`,
        headers: { host, origin: 'https://www.b-corp.example', 'content-type': 'text/plain', 'user-agent': MOBILE_UA },
        payload: JSON.stringify({ v: 'visitor-0001', s: 'visit-0001', e: [] }),
        remoteAddress: '198.51.100.9',
      });
    expect((await collect(B_DOMAIN)).json()).toEqual({ status: 1, data: {} });
    const elsewhere = await collect(A_DOMAIN);
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({ code: 'site_key_invalid' });
  });

  it("campaign mails track opens, clicks and unsubscribes on the share domain, and refuse another project's tokens there", async () => {
    const id = `share-c-${Date.now()}`;
    const now = Date.now();
    await t.server.ctx.database.db
      .insertInto('customers')
      .values({
        id,
        app_id: p.appId,
        owner_id: p.master.id,
        name: 'Ada',
        email: 'ada@example.com',
        email_lower: 'ada@example.com',
        group_id: null,
        status: 1,
        is_new: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const html = `<p>Hi <a href="https://${A_DOMAIN}/l/${aWeb.shareToken}">the deck</a> and <a href="https://a-corp.example/">us</a></p>`;
    const made = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/posts`,
      { title: 'Hello', html, customer_ids: id },
      { token: p.master.token },
    );
    const postId = (made.json() as { data: { postId: string } }).data.postId;
    await t.server.services.campaignSender.drain();
    const mail = box.inbox.find((m) => m.mail.headers.get('x-rapport-post') === postId);
    expect(mail).toBeDefined();
    const body = String(mail?.mail.html);
    const addresses = [...body.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string);
    const tracked = addresses.filter((a) => a.includes('/m/'));
    expect(tracked.length).toBeGreaterThanOrEqual(3);
    expect(tracked.every((a) => a.startsWith(`https://${A_DOMAIN}/m/`))).toBe(true);
    const unsubscribe = mail?.mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line ?? '';
    expect(unsubscribe).toContain(`<https://${A_DOMAIN}/m/u/`);
    // The campaign's material is its share link at the share domain.
    const record = await t.server.ctx.database.db
      .selectFrom('campaigns')
      .select('material_link_id')
      .where('app_id', '=', p.appId)
      .where('id', '=', postId)
      .executeTakeFirst();
    expect(record?.material_link_id).toBe(aWeb.id);

    const click = new URL(tracked.find((a) => a.includes('/m/c/')) as string);
    const clicked = await onHost(A_DOMAIN, 'GET', click.pathname);
    expect(clicked.statusCode).toBe(302);
    expect(clicked.headers.location).toContain(`https://${A_DOMAIN}/l/${aWeb.shareToken}?rapport_click=`);
    const pixel = new URL(tracked.find((a) => a.includes('/m/o/')) as string);
    expect((await onHost(A_DOMAIN, 'GET', pixel.pathname)).statusCode).toBe(200);
    const unsub = new URL(tracked.find((a) => a.includes('/m/u/')) as string);
    expect((await onHost(A_DOMAIN, 'GET', unsub.pathname)).statusCode).toBe(200);
    // Another project's domain knows none of them.
    expect((await onHost(B_DOMAIN, 'GET', click.pathname)).statusCode).toBe(400);
    expect((await onHost(B_DOMAIN, 'GET', pixel.pathname)).statusCode).toBe(400);
    expect((await onHost(B_DOMAIN, 'GET', unsub.pathname)).statusCode).toBe(400);
    // The server's own host still knows them all.
    expect((await onHost('rapport.example', 'GET', unsub.pathname)).statusCode).toBe(200);
  });
});

describe('GET /tls/ask', () => {
  const ask = (domain: string, ip = '127.0.0.1', headers: Record<string, string> = {}) =>
    t.server.app.inject({ method: 'GET', url: `/tls/ask?domain=${encodeURIComponent(domain)}`, remoteAddress: ip, headers });

  it('answers 200 for a claimed domain and 404 for anything else', async () => {
    expect((await ask(A_DOMAIN)).statusCode).toBe(200);
    expect((await ask(A_DOMAIN.toUpperCase())).statusCode).toBe(200);
    expect((await ask(B_DOMAIN, '10.1.2.3')).statusCode).toBe(200);
    expect((await ask('unclaimed.example')).statusCode).toBe(404);
    expect((await ask('rapport.example')).statusCode).toBe(404);
    expect((await ask('')).statusCode).toBe(404);
    expect((await t.server.app.inject({ method: 'GET', url: '/tls/ask', remoteAddress: '127.0.0.1' })).statusCode).toBe(404);
  });

  it('answers only callers straight from loopback or a private network, never through the proxy, nor on a share domain', async () => {
    const claimed = await ask(A_DOMAIN, '127.0.0.1');
    const refused = [
      await ask(A_DOMAIN, '203.0.113.5'),
      await ask(A_DOMAIN, '127.0.0.1', { 'x-forwarded-for': '203.0.113.5' }),
      await ask(A_DOMAIN, '127.0.0.1', { forwarded: 'for=203.0.113.5' }),
    ];
    const unclaimed = await ask('unclaimed.example');
    for (const res of refused) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe(unclaimed.body);
    }
    expect(claimed.statusCode).toBe(200);
    // On a share domain it is one more path of the server's own: the 404 there.
    expect((await ask(A_DOMAIN, '127.0.0.1', { host: A_DOMAIN })).statusCode).toBe(404);
  });
});
