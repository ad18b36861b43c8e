// lanes: sqlite postgres
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, MOBILE_UA, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * A link's agreement (an NDA) accepted before the document: shown after the gates, required by the
 * page, its images, the download, the form and the beacons; each acceptance recorded with its version
 * and the text's hash, listed for those who may edit the link as JSON and as CSV.
 */
const t = useTestServer({ PUBLIC_BASE_URL: 'https://rapport.example' });
let p: HistoryProject;
let fileId: string;

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
});

const FORM = 'application/x-www-form-urlencoded';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const TEXT = 'Mutual non-disclosure.\n\n1. Keep it <b>secret</b> & "safe".';

interface Acceptance {
  id: string;
  linkId: string;
  version: number;
  textHash: string;
  email: string | null;
  name: string | null;
  visitorId: string;
  viewId: string | null;
  acceptedAt: string;
  ip: string | null;
  userAgent: string | null;
}

const acceptances = async (linkId: string, token = p.sales.token, query: Record<string, string | number> = {}) =>
  t.server.api.get(`/api/v1.7/app/${p.appId}/link/${linkId}/agreements`, { token, query });

describe('the agreement', () => {
  it('comes after the e-mail gate and before the document; images, download, form and beacons wait for it', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Under NDA',
      file_id: fileId,
      email_gate: 1,
      allow_download: 1,
      form_position: 1,
      agreement: TEXT,
    });
    const b = new Browser(t.server);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('type="email"');
    await b.post(`/l/${link.shareToken}/gate`, form({ email: 'reader@example.com', name: 'Rita Reader' }), FORM);
    const page = await b.get(`/l/${link.shareToken}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Keep it &lt;b&gt;secret&lt;/b&gt; &amp; &quot;safe&quot;.');
    expect(page.body).toContain('name="agree" type="checkbox"');
    expect(page.body).toContain('value="Rita Reader"');
    expect(page.body).not.toContain('<img');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'nonce-");
    // Nothing of the document before the agreement, whatever is asked directly.
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    expect((await b.get(`/l/${link.shareToken}/download`)).statusCode).toBe(404);
    const beacon = await b.beacon(link.shareToken, { type: 'open', seq: 1, token: 'made.up', page: 1 });
    expect([beacon.statusCode, beacon.json().code]).toEqual([400, 'link_unavailable']);
    const sent = await b.post(`/l/${link.shareToken}/form`, JSON.stringify({ name: 'Rita' }), 'application/json');
    expect([sent.statusCode, sent.json().code]).toEqual([400, 'link_unavailable']);

    const unticked = await b.post(`/l/${link.shareToken}/agree`, form({ version: '1', name: 'Rita Reader' }), FORM);
    expect(unticked.statusCode).toBe(400);
    expect(unticked.body).toContain('Tick the box');
    const stale = await b.post(`/l/${link.shareToken}/agree`, form({ version: '0', agree: '1' }), FORM);
    expect(stale.statusCode).toBe(409);
    expect((await acceptances(link.id)).json()).toEqual({ status: 1, data: [] });

    const agreed = await b.post(`/l/${link.shareToken}/agree`, form({ version: '1', agree: '1', name: 'Rita Reader' }), FORM);
    expect(agreed.statusCode).toBe(303);
    expect(agreed.headers.location).toBe(`/l/${link.shareToken}`);
    const opened = await b.open(link.shareToken);
    expect(opened.res.body).toContain('<img');
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
    expect((await b.get(`/l/${link.shareToken}/download`)).statusCode).toBe(200);
    const open = await b.beacon(link.shareToken, { type: 'open', seq: 1, token: opened.viewToken, page: 1 });
    expect(open.json()).toMatchObject({ status: 1 });

    const listed = (await acceptances(link.id)).json() as { status: number; data: Acceptance[] };
    expect(listed.data).toHaveLength(1);
    const first = listed.data[0] as Acceptance;
    expect(first).toMatchObject({
      linkId: link.id,
      version: 1,
      textHash: sha256(TEXT),
      email: 'reader@example.com',
      name: 'Rita Reader',
      visitorId: b.cookies.get('rapport_visitor'),
      ip: '198.51.100.0',
      userAgent: MOBILE_UA,
    });
    expect(first.acceptedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // The view the reader opened after accepting.
    expect(first.viewId).toMatch(/^[0-9a-f-]{36}$/);

    // A new text is a new version: the reader accepts it again.
    await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { agreement: `${TEXT}\n2. And more.` }, { token: p.sales.token });
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    const again = await b.get(`/l/${link.shareToken}`);
    expect(again.body).toContain('Version 2');
    await b.post(`/l/${link.shareToken}/agree`, form({ version: '2', agree: 'on' }), FORM);
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
    const both = ((await acceptances(link.id)).json() as { data: Acceptance[] }).data;
    expect(both.map((a) => [a.version, a.textHash])).toEqual([
      [2, sha256(`${TEXT}\n2. And more.`)],
      [1, sha256(TEXT)],
    ]);
    // The name from the gate when none is typed; paged as the other lists.
    expect(both[0]?.name).toBe('Rita Reader');
    expect(((await acceptances(link.id, p.sales.token, { start_index: 1, count: 1 })).json() as { data: Acceptance[] }).data).toEqual([
      both[1],
    ]);
  });

  it('without a gate: recorded with no address; removing the agreement opens the link', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Open NDA', file_id: fileId, agreement: 'Be nice.' });
    const b = new Browser(t.server);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('Be nice.');
    expect((await b.post(`/l/${link.shareToken}/agree`, form({ version: '1', agree: '1' }), FORM)).statusCode).toBe(303);
    const [only] = ((await acceptances(link.id)).json() as { data: Acceptance[] }).data;
    expect(only).toMatchObject({ email: null, name: null, version: 1 });
    await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { agreement: '' }, { token: p.sales.token });
    expect((await new Browser(t.server).get(`/l/${link.shareToken}`)).body).toContain('<img');
  });

  it('exports the acceptances as CSV, formula-neutralised; only those who may edit the link read them', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'CSV NDA', file_id: fileId, agreement: 'Terms.' });
    for (const name of ['=HYPERLINK("http://evil.example","x")', 'Grace, Hopper']) {
      const b = new Browser(t.server);
      expect((await b.post(`/l/${link.shareToken}/agree`, form({ version: '1', agree: '1', name }), FORM)).statusCode).toBe(303);
    }
    const csv = await acceptances(link.id, p.sales.token, { format: 'csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('accepted_at,version,text_hash,email,name,visitor_id,view_id,ip,user_agent,id');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,1,${sha256('Terms.')},,"Grace, Hopper",`);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);

    for (const token of [p.master.token, p.admin.token]) {
      expect(((await acceptances(link.id, token)).json() as { data: Acceptance[] }).data).toHaveLength(2);
    }
    // Another Sales member may not edit the link: it is as unknown as a missing one, JSON or CSV.
    expect((await acceptances(link.id, p.sales2.token)).json()).toMatchObject({ status: 0, code: 'link_not_found' });
    expect((await acceptances(link.id, p.sales2.token, { format: 'csv' })).json()).toMatchObject({ status: 0, code: 'link_not_found' });
    expect((await acceptances('no-such-link', p.master.token)).json()).toMatchObject({ status: 0, code: 'link_not_found' });
    expect((await acceptances(link.id, p.outsider.token)).statusCode).toBe(403);
    // The export is in the project's audit log, by who made it; a refused one is not.
    const log = await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token });
    const exports = (log.json() as { data: { action: string; svcUserId: string; targetType: string; targetId: string }[] }).data.filter(
      (e) => e.action === 'link.agreements_export',
    );
    expect(exports).toEqual([expect.objectContaining({ svcUserId: String(p.sales.id), targetType: 'link', targetId: link.id })]);
  });
});
