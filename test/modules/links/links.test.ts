// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, MOBILE_UA, count, createLink, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * Links made through the API (create, edit, disable, who may), and the public viewer's pages:
 * headers, gates, what opens and what does not, what a page load writes (nothing).
 */
const t = useTestServer({ PUBLIC_BASE_URL: 'https://rapport.example' });
let p: HistoryProject;
let fileId: string;

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  await addCustomers(t.server, p, [
    { id: 'links-c-sales', owner: p.sales.id, name: 'Ada Sales' },
    { id: 'links-c-sales2', owner: p.sales2.id, name: 'Bob Sales2' },
  ]);
});

const linksOf = async (token: string, withUrl = false) =>
  (
    (await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token, ...(withUrl ? { query: { with_url: 1 } } : {}) })).json() as {
      data: LinkData[];
    }
  ).data;

const linkRows = () =>
  t.server.ctx.database.db
    .selectFrom('links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', p.appId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));

describe('creating a link', () => {
  it('any member makes a file link: the Link record, a 128-bit share token, the url with with_url=1', async () => {
    const res = await createLink(t.server, p.appId, p.sales.token, { name: 'Q3 deck', file_id: fileId, tags: ['pricing', 'q3'] }, true);
    const link = (res.json() as { status: number; data: LinkData }).data;
    expect(res.json()).toMatchObject({
      status: 1,
      data: {
        appId: p.appId,
        name: 'Q3 deck',
        type: 1,
        file1: fileId,
        creatorId: String(p.sales.id),
        isDirectional: 0,
        customerId: null,
        status: 1,
        hasPasscode: false,
        allowDownload: 0,
        emailGate: 0,
        tags: ['pricing', 'q3'],
        formFields: ['name', 'email', 'phone', 'company'],
        linkViewLogCount: 0,
        viewerCount: 0,
        clueCount: 0,
      },
    });
    // 16 random bytes, base64url: 22 characters.
    expect(link.shareToken).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(link.url).toBe(`https://rapport.example/l/${link.shareToken}`);
    const listed = (await linksOf(p.sales.token, true)).find((l) => l.id === link.id);
    expect(listed).toEqual(link);
    // The url answers: the viewer's page.
    const page = await new Browser(t.server).get(new URL(link.url as string).pathname);
    expect(page.statusCode).toBe(200);
    // The reader sees the file's name (no public title given), never the team's own name for the link.
    expect(page.body).toContain('<title>deck.pdf</title>');
    expect(page.body).not.toContain('Q3 deck');
    expect(link.title).toBeNull();
  });

  it("a public title is what the reader sees; '' on edit goes back to the file's name; a web page's host by default", async () => {
    const made = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Acme – 2nd try, cheaper',
      title: ' Our offer ',
      file_id: fileId,
    });
    expect(made).toMatchObject({ name: 'Acme – 2nd try, cheaper', title: 'Our offer' });
    const open = async (token: string) => (await new Browser(t.server).get(`/l/${token}`)).body;
    expect(await open(made.shareToken)).toContain('<title>Our offer</title>');
    expect(await open(made.shareToken)).not.toContain('cheaper');
    const edited = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${made.id}`, { title: '' }, { token: p.sales.token });
    expect(edited.json().data.title).toBeNull();
    expect(await open(made.shareToken)).toContain('<title>deck.pdf</title>');
    const tooLong = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/link/${made.id}`,
      { title: 'x'.repeat(201) },
      { token: p.sales.token },
    );
    expect(tooLong.json()).toMatchObject({ status: 0, code: 'title_invalid' });
    // A passcode page tells neither the team's name nor the file's before the passcode.
    const locked = await madeLink(t.server, p.appId, p.sales.token, { name: 'Internal name', file_id: fileId, passcode: 'open sesame' });
    const gate = await open(locked.shareToken);
    expect(gate).toContain('<title>Shared document</title>');
    expect(gate).not.toContain('Internal name');
    expect(gate).not.toContain('deck.pdf');
    const web = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Pricing page',
      type: 2,
      website: 'https://www.example.com/pricing',
      embed: 1,
    });
    expect(await open(web.shareToken)).toContain('<title>www.example.com</title>');
  });

  it('with_url is a parameter like the others: as a form field or in JSON too, on create and edit', async () => {
    const path = `/api/v1.7/app/${p.appId}/links`;
    const form = await t.server.api.post(path, { name: 'Form deck', file_id: fileId, with_url: '1' }, { token: p.sales.token, form: true });
    const made = form.json().data as LinkData;
    expect(made.url).toBe(`https://rapport.example/l/${made.shareToken}`);
    expect(made).not.toHaveProperty('with_url');
    const json = await t.server.api.post(path, { name: 'JSON deck', file_id: fileId, with_url: 0 }, { token: p.sales.token });
    expect(json.json().data.url).toBeUndefined();
    const edited = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/link/${made.id}`,
      { name: 'Form deck, renamed', with_url: '1' },
      { token: p.sales.token, form: true },
    );
    expect(edited.json().data).toMatchObject({ name: 'Form deck, renamed', url: made.url });
  });

  it('web page and redirect links take http and https addresses only', async () => {
    const web = await madeLink(t.server, p.appId, p.admin.token, { name: 'Site', type: 2, website: 'https://example.com/pricing?a=1' });
    expect(web).toMatchObject({ type: 2, website: 'https://example.com/pricing?a=1', file1: null });
    for (const website of ['javascript:alert(1)', 'ftp://example.com/x', 'file:///etc/passwd', 'data:text/html,hi', 'example.com', '']) {
      const res = await createLink(t.server, p.appId, p.sales.token, { name: 'Bad', type: 3, website });
      expect(res.json(), website).toMatchObject({ status: 0, code: website === '' ? 'website_required' : 'website_invalid' });
    }
  });

  it('refuses what is wrong, each with its code, and stores nothing', async () => {
    const before = await linkRows();
    const cases: [Record<string, unknown>, string][] = [
      [{ file_id: fileId }, 'name_required'],
      [{ name: '   ', file_id: fileId }, 'name_required'],
      [{ name: 'No file' }, 'file_id_required'],
      [{ name: 'Unknown file', file_id: '00000000-0000-7000-8000-000000000000' }, 'file_not_found'],
      [{ name: 'Pass', file_id: fileId, passcode: 'abc' }, 'passcode_invalid'],
      // This server sends no mail (no SMTP_URL): the e-mail gate cannot mail its codes.
      [{ name: 'Verify', file_id: fileId, email_verify: 1 }, 'mail_not_configured'],
      [{ name: 'Past', file_id: fileId, expires_at: '2001-01-01 00:00:00' }, 'expires_at_invalid'],
      [{ name: 'Bad date', file_id: fileId, expires_at: 'tomorrow' }, 'expires_at_invalid'],
      [{ name: 'Fields', file_id: fileId, form_fields: 'name,password' }, 'form_fields_invalid'],
      [{ name: 'Tags', file_id: fileId, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags_invalid'],
      // A Sales member directs links at their own customers only.
      [{ name: 'Other customer', file_id: fileId, customer_id: 'links-c-sales2' }, 'customer_not_found'],
      [{ name: 'No customer', file_id: fileId, customer_id: 'nobody' }, 'customer_not_found'],
    ];
    for (const [body, code] of cases) {
      const res = await createLink(t.server, p.appId, p.sales.token, body);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ status: 0, code });
    }
    const bad = await createLink(t.server, p.appId, p.sales.token, { name: 'Type', type: 5, website: 'https://x.example' });
    expect(bad.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    expect(await linkRows()).toBe(before);
  });

  it('a directed link carries its customer; non-members are refused', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'For Ada', file_id: fileId, customer_id: 'links-c-sales' });
    expect(link).toMatchObject({ isDirectional: 1, customerId: 'links-c-sales', customer: { id: 'links-c-sales', name: 'Ada Sales' } });
    const admin = await madeLink(t.server, p.appId, p.admin.token, { name: 'For Bob', file_id: fileId, customer_id: 'links-c-sales2' });
    expect(admin.customer).toMatchObject({ id: 'links-c-sales2' });
    const outsider = await createLink(t.server, p.appId, p.outsider.token, { name: 'x', file_id: fileId });
    expect(outsider.statusCode).toBe(403);
    expect(outsider.json()).toMatchObject({ error: 'forbidden' });
    const unknown = await createLink(t.server, 'no-such-project', p.sales.token, { name: 'x', file_id: fileId });
    expect(unknown.json()).toMatchObject({ status: 0, code: 'app_not_found' });
  });
});

describe('editing and disabling', () => {
  let link: LinkData;
  beforeAll(async () => {
    link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Editable', file_id: fileId, remark: 'first' });
  });

  it('the creator edits their link: given fields change, the others stay', async () => {
    const res = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/link/${link.id}`,
      { name: 'Edited', passcode: 'open sesame' },
      {
        token: p.sales.token,
      },
    );
    expect(res.json()).toMatchObject({
      status: 1,
      data: { id: link.id, name: 'Edited', remark: 'first', hasPasscode: true, shareToken: link.shareToken },
    });
    const cleared = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/link/${link.id}`,
      { passcode: '', remark: '' },
      { token: p.sales.token },
    );
    expect(cleared.json()).toMatchObject({ status: 1, data: { hasPasscode: false, remark: null } });
  });

  it('another Sales member cannot edit or disable it (link_not_found); Master and Admin can', async () => {
    for (const call of [
      () => t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { name: 'Taken' }, { token: p.sales2.token }),
      () => t.server.api.delete(`/api/v1.7/app/${p.appId}/link/${link.id}`, { token: p.sales2.token }),
      () => t.server.api.put(`/api/v1.7/app/${p.appId}/link/unknown-link`, { name: 'x' }, { token: p.master.token }),
    ]) {
      expect((await call()).json()).toMatchObject({ status: 0, code: 'link_not_found' });
    }
    const outsider = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { name: 'x' }, { token: p.outsider.token });
    expect(outsider.statusCode).toBe(403);
    const admin = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { remark: 'by admin' }, { token: p.admin.token });
    expect(admin.json()).toMatchObject({ status: 1, data: { remark: 'by admin', name: 'Edited' } });
  });

  it('a disabled link answers 410 and stays listed with its history', async () => {
    const res = await t.server.api.delete(`/api/v1.7/app/${p.appId}/link/${link.id}`, { token: p.master.token });
    expect(res.json()).toEqual({ status: 1, data: true });
    const page = await new Browser(t.server).get(`/l/${link.shareToken}`);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('disabled');
    expect((await linksOf(p.master.token)).find((l) => l.id === link.id)).toMatchObject({ status: 0 });
    // Disabling twice is no error.
    expect((await t.server.api.delete(`/api/v1.7/app/${p.appId}/link/${link.id}`, { token: p.sales.token })).json()).toEqual({
      status: 1,
      data: true,
    });
  });
});

describe('the viewer page', () => {
  let link: LinkData;
  beforeAll(async () => {
    link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Viewer', title: 'Viewer <deck>', file_id: fileId, form_position: 3 });
  });

  it('is a server-rendered page: the first page inline with its size, the others lazily, noindex, no referrer, a nonce CSP', async () => {
    const before = await Promise.all([count(t.server, 'link_view_logs'), count(t.server, 'behaviour_logs'), count(t.server, 'outbox')]);
    const b = new Browser(t.server);
    const { res, viewToken, config } = await b.open(link.shareToken);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-robots-tag']).toContain('noindex');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    const csp = String(res.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.body).toContain('<meta name="robots" content="noindex, nofollow, noarchive">');
    // Escaped, never markup.
    expect(res.body).toContain('Viewer &lt;deck&gt;');
    expect(res.body).not.toContain('<deck>');
    const images = [...res.body.matchAll(/<img [^>]*>/g)].map((m) => m[0]);
    expect(images).toHaveLength(3);
    expect(images[0]).toMatch(/width="1600" height="900"/);
    expect(images[0]).toContain('fetchpriority="high"');
    expect(images[0]).toMatch(/srcset="[^"]*750w, [^"]*1600w"/);
    expect(images[1]).toContain('loading="lazy"');
    // The script by nonce, no inline handler anywhere.
    expect(res.body).toMatch(new RegExp(`<script src="/assets/viewer\\.[0-9a-f]{16}\\.js" nonce="${nonce}" defer></script>`));
    expect(res.body).not.toMatch(/\son[a-z]+=/i);
    expect(config).toMatchObject({ pages: 3, events: `/l/${link.shareToken}/events`, start: 1 });
    expect(viewToken).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // The form after page 3, with its honeypot.
    expect(res.body).toContain(`action="/l/${link.shareToken}/form"`);
    expect(res.body).toContain('name="url"');
    // A visitor cookie, HttpOnly, on the viewer's paths.
    expect(String(res.headers['set-cookie'])).toMatch(
      /rapport_visitor=[A-Za-z0-9_-]{22}; Path=\/l; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure/,
    );
    // The page load wrote nothing: a view starts with the script's open beacon.
    const after = await Promise.all([count(t.server, 'link_view_logs'), count(t.server, 'behaviour_logs'), count(t.server, 'outbox')]);
    expect(after).toEqual(before);
  });

  it('?p= starts at a page; page images and the script are served', async () => {
    const b = new Browser(t.server);
    const res = await b.get(`/l/${link.shareToken}?p=2`);
    expect(res.body).toContain('<span id="current">2</span>');
    const image = await b.get(`/l/${link.shareToken}/page/2?width=desktop`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/webp');
    expect(image.headers['cache-control']).toBe('private, max-age=3600');
    const again = await b.get(`/l/${link.shareToken}/page/2?width=desktop`, { 'if-none-match': String(image.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect((await b.get(`/l/${link.shareToken}/page/4`)).statusCode).toBe(404);
    expect((await b.get(`/l/${link.shareToken}/page/x`)).statusCode).toBe(404);
    const script = /<script src="(\/assets\/viewer\.[0-9a-f]{16}\.js)"/.exec(res.body)?.[1] as string;
    const js = await b.get(script, { 'accept-encoding': 'gzip' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-encoding']).toBe('gzip');
    expect((await b.get('/assets/viewer.0000000000000000.js')).statusCode).toBe(404);
  });

  it('unknown and forged share tokens get the same 404 page', async () => {
    const b = new Browser(t.server);
    const forged = `${link.shareToken.slice(0, -1)}${link.shareToken.endsWith('A') ? 'B' : 'A'}`;
    const answers = await Promise.all(
      ['AAAAAAAAAAAAAAAAAAAAAA', forged, 'not a token', 'x'.repeat(150)].map((tok) => b.get(`/l/${encodeURIComponent(tok)}`)),
    );
    for (const a of answers) {
      expect(a.statusCode).toBe(404);
      expect(a.body.replace(/nonce="[^"]+"/, '')).toBe(answers[0]?.body.replace(/nonce="[^"]+"/, ''));
    }
    expect((await b.get(`/l/${forged}/page/1`)).statusCode).toBe(404);
  });

  it('an expired link answers 410', async () => {
    const soon = await madeLink(t.server, p.appId, p.sales.token, { name: 'Soon', file_id: fileId });
    await t.server.ctx.database.db
      .updateTable('links')
      .set({ expires_at: Date.now() - 1000 })
      .where('app_id', '=', p.appId)
      .where('id', '=', soon.id)
      .execute();
    const res = await new Browser(t.server).get(`/l/${soon.shareToken}`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('expired');
    expect((await new Browser(t.server).get(`/l/${soon.shareToken}/page/1`)).statusCode).toBe(404);
  });

  it('/link/{link-id}?share_token= redirects to the viewer', async () => {
    const b = new Browser(t.server);
    const res = await b.get(`/link/${link.id}?share_token=${link.shareToken}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/l/${link.shareToken}`);
    expect((await b.get(`/link/${link.id}?share_token=AAAAAAAAAAAAAAAAAAAAAA`)).statusCode).toBe(404);
    expect((await b.get(`/link/other-id?share_token=${link.shareToken}`)).statusCode).toBe(404);
  });

  it('offers the original only when the link allows it', async () => {
    const b = new Browser(t.server);
    expect((await b.get(`/l/${link.shareToken}/download`)).statusCode).toBe(404);
    expect((await b.open(link.shareToken)).res.body).not.toContain('/download');
    const open = await madeLink(t.server, p.appId, p.sales.token, { name: 'Take it', file_id: fileId, allow_download: 1 });
    expect((await b.open(open.shareToken)).res.body).toContain(`href="/l/${open.shareToken}/download"`);
    const original = await b.get(`/l/${open.shareToken}/download`);
    expect(original.statusCode).toBe(200);
    expect(original.headers['content-type']).toBe('application/pdf');
    expect(original.headers['content-disposition']).toContain('attachment; filename="deck.pdf"');
    expect(original.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a member of the project signed in previews it: no view token, nothing recorded', async () => {
    const b = new Browser(t.server);
    const preview = await b.get(`/l/${link.shareToken}`, { authorization: `Bearer ${p.sales2.token}` });
    expect(preview.body).toContain('"token":null');
    // An outsider's token changes nothing: a view token as for anyone.
    const outsider = await b.get(`/l/${link.shareToken}`, { authorization: `Bearer ${p.outsider.token}` });
    expect(outsider.body).toMatch(/"token":"[^"]+"/);
  });

  it("a member signed in to the console previews it too: the console's member pass cookie", async () => {
    const signIn = async (user: { username: string; password: string }) => {
      const res = await t.server.api.post(
        '/svcuser/console/session',
        { username: user.username, password: user.password },
        { headers: { origin: 'http://localhost:80' } },
      );
      expect(res.statusCode).toBe(200);
      const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
      const pass = cookies.find((c) => c.startsWith('rapport_member='));
      expect(pass).toMatch(/; Path=\/l; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
      return (pass as string).split(';')[0] as string;
    };
    const member = await signIn(p.sales2);
    const preview = await new Browser(t.server).get(`/l/${link.shareToken}`, { cookie: member });
    expect(preview.body).toContain('"token":null');
    // Another project's user signed in to the console is a viewer like anyone; a forged pass is ignored.
    const outsider = await new Browser(t.server).get(`/l/${link.shareToken}`, { cookie: await signIn(p.outsider) });
    expect(outsider.body).toMatch(/"token":"[^"]+"/);
    const forged = `rapport_member=${Buffer.from(JSON.stringify({ u: p.sales2.id, e: 9999999999 })).toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`;
    expect((await new Browser(t.server).get(`/l/${link.shareToken}`, { cookie: forged })).body).toMatch(/"token":"[^"]+"/);
  });
});

describe('gates', () => {
  it('a passcode: asked first, wrong answers keep it closed, the right one opens page and images', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Secret', file_id: fileId, passcode: 'letmein!' });
    const b = new Browser(t.server);
    const gate = await b.get(`/l/${link.shareToken}`);
    expect(gate.statusCode).toBe(200);
    expect(gate.body).toContain('type="password"');
    expect(gate.body).not.toContain('<img');
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    const wrong = await b.post(`/l/${link.shareToken}/unlock`, 'passcode=nope', 'application/x-www-form-urlencoded');
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain('not right');
    const right = await b.post(`/l/${link.shareToken}/unlock`, 'passcode=letmein!', 'application/x-www-form-urlencoded');
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe(`/l/${link.shareToken}`);
    expect(String(right.headers['set-cookie'])).toContain(`Path=/l/${link.shareToken}`);
    const page = await b.get(`/l/${link.shareToken}`);
    expect(page.body).toContain('<img');
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
    // A new passcode closes it again.
    await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { passcode: 'another one' }, { token: p.sales.token });
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('type="password"');
    // Another browser has no cookie: still closed.
    expect((await new Browser(t.server).get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
  });

  it('an e-mail gate: the address is asked first, recorded as a clue, and opens the link', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Gated', file_id: fileId, email_gate: 1 });
    const b = new Browser(t.server);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('type="email"');
    const bad = await b.post(`/l/${link.shareToken}/gate`, 'email=not-an-address', 'application/x-www-form-urlencoded');
    expect(bad.statusCode).toBe(400);
    const clues = await count(t.server, 'clues');
    const ok = await b.post(`/l/${link.shareToken}/gate`, 'email=reader%40example.com&name=Reader', 'application/x-www-form-urlencoded');
    expect(ok.statusCode).toBe(303);
    expect(await count(t.server, 'clues')).toBe(clues + 1);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('<img');
    const listed = (await linksOf(p.sales.token)).find((l) => l.id === link.id);
    expect(listed?.clueCount).toBe(1);
  });
});

describe('web page and redirect links', () => {
  it('a redirect link records the visit and answers 302; bots and HEAD requests are not counted', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Go', type: 3, website: 'https://example.com/landing' });
    const bot = new Browser(t.server, 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)');
    expect((await bot.get(`/l/${link.shareToken}`)).statusCode).toBe(302);
    const head = await t.server.app.inject({ method: 'HEAD', url: `/l/${link.shareToken}`, headers: { 'user-agent': MOBILE_UA } });
    expect(head.statusCode).toBe(302);
    expect((await linksOf(p.sales.token)).find((l) => l.id === link.id)?.linkViewLogCount).toBe(0);
    const res = await new Browser(t.server).get(`/l/${link.shareToken}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/landing');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect((await linksOf(p.sales.token)).find((l) => l.id === link.id)).toMatchObject({ linkViewLogCount: 1, viewerCount: 1 });
  });

  it('a web page is framed only with embed=1 (frame-src its origin); otherwise the page records, then opens it', async () => {
    const framed = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Framed',
      type: 2,
      website: 'https://docs.example.org/a',
      embed: 1,
    });
    const res = await new Browser(t.server).get(`/l/${framed.shareToken}`);
    expect(String(res.headers['content-security-policy'])).toContain('frame-src https://docs.example.org');
    expect(res.body).toContain('<iframe class="frame" src="https://docs.example.org/a"');
    const plain = await madeLink(t.server, p.appId, p.sales.token, { name: 'Plain', type: 2, website: 'https://docs.example.org/b' });
    const page = await new Browser(t.server).open(plain.shareToken);
    expect(String(page.res.headers['content-security-policy'])).not.toContain('frame-src');
    expect(page.res.body).not.toContain('<iframe');
    expect(page.config).toMatchObject({ redirect: 'https://docs.example.org/b', pages: 1 });
  });
});
