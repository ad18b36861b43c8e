// lanes: sqlite postgres
import { createCanvas } from '@napi-rs/canvas';
import { beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { MOBILE_UA, madeLink } from '../../helpers/links.ts';

/**
 * A project's logo (docs/projects.md, "Logo"): uploaded by the Master or an Admin, checked by its
 * bytes, served at an address nobody can guess, shown by the public viewer with the project's name.
 */
const t = useTestServer();
let p: HistoryProject;
let other: HistoryProject;

function png(width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#0b57d0';
  g.fillRect(0, 0, width, height);
  return canvas.toBuffer('image/png');
}

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');

function putLogo(project: HistoryProject, token: string, bytes: Buffer | null, filename = 'logo.png') {
  const body = multipart(bytes === null ? null : { filename, bytes, contentType: 'image/png' });
  return t.server.api.post(`/api/v1.7/app/${project.appId}/logo`, body.payload, { token, headers: { 'content-type': body.contentType } });
}

const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  p = await historyProject(t.server);
  other = await historyProject(t.server);
});

describe('the project logo', () => {
  it('the Master uploads a PNG: served at its own address, the project icon, and replaced by the next', async () => {
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.admin.token })).json()).toEqual({
      status: 1,
      data: { url: null, contentType: null, size: null },
    });
    const bytes = png(120, 40);
    const res = await putLogo(p, p.master.token, bytes);
    expect(res.json()).toMatchObject({ status: 1, data: { contentType: 'image/png', size: bytes.length } });
    const url = res.json().data.url as string;
    expect(url).toMatch(new RegExp(`^${t.server.ctx.config.publicBaseUrl}/logo/${p.appId}/[A-Za-z0-9_-]{22}$`));

    const served = await t.server.api.get(pathOf(url));
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['content-security-policy']).toContain('sandbox');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['cache-control']).toContain('immutable');
    expect(served.rawPayload.equals(bytes)).toBe(true);

    const detail = (await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token })).json().data;
    expect(detail).toMatchObject({ iconURL: url, iconWidth: 120, iconHeight: 40 });

    const again = await putLogo(p, p.admin.token, png(64, 64));
    const next = again.json().data.url as string;
    expect(next).not.toBe(url);
    expect((await t.server.api.get(pathOf(url))).statusCode).toBe(404);
    expect((await t.server.api.get(pathOf(next))).statusCode).toBe(200);
    const audit = await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token, query: { count: 20 } });
    expect(audit.json().data.filter((e: { action: string }) => e.action === 'project.logo_set')).toHaveLength(2);
  });

  it('refuses SVG, other files, an empty part, a missing part and images too large, storing nothing', async () => {
    const before = (await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.master.token })).json().data;
    const cases: [Buffer | null, string][] = [
      [SVG, 'logo.svg'],
      [Buffer.from('GIF89a not really'), 'logo.gif'],
      [Buffer.from('just text'), 'logo.png'],
      [Buffer.alloc(0), 'logo.png'],
      [null, ''],
      [Buffer.concat([png(10, 10), Buffer.alloc(600 * 1024)]), 'big.png'],
      [png(5000, 10), 'wide.png'],
    ];
    for (const [bytes, name] of cases) {
      const res = await putLogo(p, p.master.token, bytes, name);
      expect(res.statusCode, name).toBeLessThan(500);
      expect(res.json(), name).toMatchObject({ status: 0, code: expect.stringMatching(/^(invalid_file|payload_too_large)$/) });
    }
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.master.token })).json().data).toEqual(before);
  });

  it('is the Master’s and Admins’: Sales and outsiders are refused before the body is read', async () => {
    expect((await putLogo(p, p.sales.token, png(8, 8))).statusCode).toBe(403);
    expect((await putLogo(p, p.outsider.token, png(8, 8))).statusCode).toBe(403);
    expect((await putLogo(other, p.master.token, png(8, 8))).statusCode).toBe(403);
    expect((await t.server.api.delete(`/api/v1.7/app/${p.appId}/logo`, { token: p.sales.token })).statusCode).toBe(403);
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.sales.token })).statusCode).toBe(403);
  });

  it('refuses a body larger than any logo by its Content-Length, and a non-member before reading it', async () => {
    const big = multipart({ filename: 'big.png', bytes: Buffer.alloc(2 * 1024 * 1024, 1), contentType: 'image/png' });
    const url = `/api/v1.7/app/${p.appId}/logo`;
    const member = await t.server.api.post(url, big.payload, { token: p.master.token, headers: { 'content-type': big.contentType } });
    expect(member.statusCode).toBe(413);
    expect(member.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
    const outsider = await t.server.api.post(url, big.payload, { token: p.outsider.token, headers: { 'content-type': big.contentType } });
    expect(outsider.statusCode).toBe(403);
    expect((await t.server.api.get(url, { token: p.master.token })).json().data.url).not.toBeNull();
  });

  it('answers the same 404 for a wrong token, another project or a made-up path', async () => {
    const url = (await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.master.token })).json().data.url as string;
    const token = url.split('/').pop() as string;
    const wrong = [
      `/logo/${p.appId}/${'A'.repeat(22)}`,
      `/logo/${other.appId}/${token}`,
      `/logo/no-such-project/${token}`,
      `/logo/${p.appId}/${token}x`,
      `/logo/${p.appId}/..%2F..%2Fetc`,
    ];
    for (const path of wrong) {
      const res = await t.server.api.get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body, path).toBe('Not found');
    }
  });

  it('the viewer shows the logo and the project name in its bar, and uses the logo as its icon', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Pricing',
      type: 2,
      website: 'https://example.com/pricing',
      embed: 1,
    });
    const logo = pathOf((await t.server.api.get(`/api/v1.7/app/${p.appId}/logo`, { token: p.master.token })).json().data.url);
    const page = await t.server.api.get(`/l/${link.shareToken}`, { headers: { 'user-agent': MOBILE_UA } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<link rel="icon" href="${logo}">`);
    expect(page.body).toContain(`<img class="logo" src="${logo}" alt="" height="32">`);
    expect(page.body).toContain('<span class="brand">Histories</span>');
    // The logo is served from the viewer's own origin, within its CSP's img-src 'self'.
    expect(page.headers['content-security-policy']).toContain("img-src 'self'");

    // Without a logo: the name still, and the server's icon.
    const removed = await t.server.api.delete(`/api/v1.7/app/${p.appId}/logo`, { token: p.admin.token });
    expect(removed.json()).toEqual({ status: 1, data: { url: null, contentType: null, size: null } });
    expect((await t.server.api.get(logo)).statusCode).toBe(404);
    const plain = (await t.server.api.get(`/l/${link.shareToken}`, { headers: { 'user-agent': MOBILE_UA } })).body;
    expect(plain).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    expect(plain).not.toContain('class="logo"');
    expect(plain).toContain('<span class="brand">Histories</span>');
    const detail = (await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token })).json().data;
    expect(detail).toMatchObject({ iconURL: null, iconWidth: null, iconHeight: null });
  });
});
