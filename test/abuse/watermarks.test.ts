// lanes: sqlite
/**
 * Watermarked page images under a flood (docs/links.md, "Watermarks and deterrence"; ADR 0044): the
 * readers of one project's watermarked link ask for its pages and its download as fast as they are
 * answered, as many addresses would (the per-address limit, RATE_LIMIT_VIEWER, is raised out of the
 * way: it is the places of the page renderer that are attacked). The server and its renderer's child
 * must stay under 600 MB and answer the flood with images or 503s only; another project's watermarked
 * page must still be drawn, within 3 s, and another user's API request answered within 1 s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/files.ts';
import { MOBILE_UA } from '../helpers/links.ts';
import { type AbuseServer, type AbuseUser, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

const abuse = useAbuseServer({ RATE_LIMIT_VIEWER: '1000000' });
const FLOOD_MS = 8000;
const FLOODERS = 64;
const DOWNLOADS = 6;

/** A project's rendered 3-page deck shared by a link with a watermark and its download. */
async function watermarkedLink(s: AbuseServer, owner: AbuseUser, name: string): Promise<{ appId: string; token: string }> {
  const { appId } = await createProject(s, owner, name);
  const form = new FormData();
  form.append('file', new Blob([fixture('deck.pdf')], { type: 'application/pdf' }), 'deck.pdf');
  const uploaded = await fetch(`${s.base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: owner.auth, body: form });
  const fileId = ((await uploaded.json()) as { data: { id: string } }).data.id;
  for (let i = 0; ; i++) {
    const file = (await (await fetch(`${s.base}/api/v1.7/app/${appId}/file/${fileId}`, { headers: owner.auth })).json()) as {
      data: { status: string };
    };
    if (file.data.status === 'ready') break;
    if (file.data.status === 'failed' || i > 600) throw new Error(`the deck did not render: ${file.data.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const res = await fetch(`${s.base}/api/v1.7/app/${appId}/links`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name, file_id: fileId, watermark: 1, allow_download: 1 }),
  });
  return { appId, token: ((await res.json()) as { data: { shareToken: string } }).data.shareToken };
}

const get = async (url: string): Promise<{ status: number; bytes: Buffer; ms: number }> => {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'user-agent': MOBILE_UA } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, ms: performance.now() - t0 };
};

describe("a flood of a watermarked link's pages and downloads", () => {
  let owner: AbuseUser;
  let other: AbuseUser;
  let flooded: { appId: string; token: string };
  let theirs: { appId: string; token: string };

  beforeAll(async () => {
    [owner, other] = [await signUp(abuse.server), await signUp(abuse.server)];
    flooded = await watermarkedLink(abuse.server, owner, 'Flooded');
    theirs = await watermarkedLink(abuse.server, other, 'Elsewhere');
  }, 120_000);

  it("answers with images or 503s, stays under 600 MB, and still draws another project's pages", async () => {
    const base = abuse.server.base;
    const attack = await underAttack(
      abuse.server,
      async () => {
        const statuses = new Map<number, number>();
        const deadline = performance.now() + FLOOD_MS;
        const flooder = async (i: number) => {
          while (performance.now() < deadline) {
            const r = await get(`${base}/l/${flooded.token}/page/${1 + (i % 3)}?width=desktop`);
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          }
        };
        const downloads = Promise.all(Array.from({ length: DOWNLOADS }, () => get(`${base}/l/${flooded.token}/download`)));
        // Another project's reader, once the flood is on: three pages, one after the other.
        const reader = (async () => {
          await new Promise((r) => setTimeout(r, 1000));
          const pages = [];
          for (let n = 1; n <= 3; n++) pages.push(await get(`${base}/l/${theirs.token}/page/${n}?width=desktop`));
          return pages;
        })();
        await Promise.all(Array.from({ length: FLOODERS }, (_, i) => flooder(i)));
        return { statuses, downloads: await downloads, reader: await reader };
      },
      // Another user's request meanwhile.
      () => fetch(`${base}/api/v1.7/app/${theirs.appId}/files`, { headers: other.auth }),
    );

    const { statuses, downloads, reader } = attack.result;
    console.log(
      JSON.stringify({
        statuses: Object.fromEntries(statuses),
        downloads: downloads.map((d) => [d.status, d.bytes.length, Math.round(d.ms)]),
        readerMs: reader.map((r) => Math.round(r.ms)),
        peakRssMb: Math.round(attack.peakRssMb),
        probeWorstMs: Math.round(attack.worstMs),
        probes: attack.probes,
      }),
    );
    expect(abuse.server.alive()).toBe(true);
    // Only images and 503s: some pages drawn, the rest refused before anything was held for them.
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    // Two downloads of the project at once: the others refused; those written are whole PDFs.
    const written = downloads.filter((d) => d.status === 200);
    expect(written.length).toBeGreaterThanOrEqual(1);
    expect(written.length).toBeLessThanOrEqual(2);
    expect(downloads.every((d) => d.status === 200 || d.status === 503)).toBe(true);
    for (const d of written) {
      expect(d.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(d.bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');
    }
    // The other project's reader: each page drawn, taking turns with the flood.
    for (const page of reader) {
      expect(page.status).toBe(200);
      expect(page.ms).toBeLessThan(3000);
    }
    expect(attack.peakRssMb).toBeLessThan(600);
    expect(attack.worstMs).toBeLessThan(1000);
  }, 120_000);
});
