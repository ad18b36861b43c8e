/**
 * Watermarked page images (docs/links.md, "Watermarks and deterrence"; ADR 0044) against plain ones:
 * the real server (as `npm start` runs it) on a fresh database, the 3-page deck shared by two links,
 * one with `watermark`, then
 * - page images at 1600 px one at a time, in turns (plain, watermarked): each request's time, p50 and
 *   p99 (a watermarked image is drawn by the page renderer's child for every request; a plain one is
 *   the stored file);
 * - a burst of 64 watermarked page requests at once: how many were drawn, how many answered 503
 *   (16 of a project wait in a process at most), the slowest, and the server's peak RSS with its
 *   renderer's child;
 * - the watermarked download: the deck as a PDF, its time per page.
 *   node --import tsx bench/watermark.ts [--db sqlite|postgres] [--images N]
 * `npm run bench` runs it too (the "watermark" rows).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PHONE_UA } from '../test/helpers/browser.ts';
import { rssOf, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { printFigures, runMain, samplePeak } from './support/report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
/** Page images asked for of each link (one at a time). */
const IMAGES = Number(option('images', '60'));
const BURST = 64;
const DECK = path.join(ROOT, 'test/fixtures/files/deck.pdf');
const PAGES = 3;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round = (ms: number) => Math.round(ms * 10) / 10;

/** The p50 and p99 of request times, in ms. */
function latency(times: number[]): { p50ms: number; p99ms: number; images: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50ms: round(percentile(sorted, 50)), p99ms: round(percentile(sorted, 99)), images: times.length };
}

async function main(): Promise<void> {
  const server = await startBenchServer({ db: DB, label: 'watermark' });
  try {
    const { base, pid } = server;
    const { auth, json, appId } = await server.signIn('Watermark bench');
    const body = new FormData();
    body.append('file', new Blob([fs.readFileSync(DECK)], { type: 'application/pdf' }), 'deck.pdf');
    const upload = await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: auth, body });
    const fileId = ((await upload.json()) as { data: { id: string } }).data.id;
    for (;;) {
      const f = (await (await fetch(`${base}/api/v1.7/app/${appId}/file/${fileId}`, { headers: auth })).json()) as {
        data: { status: string };
      };
      if (f.data.status === 'ready') break;
      if (f.data.status === 'failed') throw new Error('the deck failed to render');
      await sleep(50);
    }
    const link = async (fields: Record<string, unknown>) =>
      (
        (await (
          await fetch(`${base}/api/v1.7/app/${appId}/links`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ file_id: fileId, ...fields }),
          })
        ).json()) as { data: { shareToken: string } }
      ).data.shareToken;
    const plain = await link({ name: 'Plain' });
    const marked = await link({ name: 'Marked', watermark: 1, allow_download: 1 });
    const headers = { 'user-agent': PHONE_UA, cookie: 'rapport_visitor=benchVisitor0000000000A' };

    /** One page image's request: its time in ms, or its status when it was not an image. */
    const image = async (token: string, n: number): Promise<{ ms: number; status: number }> => {
      const t0 = performance.now();
      const res = await fetch(`${base}/l/${token}/page/${n}?width=desktop`, { headers });
      await res.arrayBuffer();
      return { ms: performance.now() - t0, status: res.status };
    };

    // Warm-up: the renderer's child started, the first images drawn.
    for (let n = 1; n <= PAGES; n += 1) await Promise.all([image(plain, n), image(marked, n)]);
    const times = { plain: [] as number[], marked: [] as number[] };
    for (let i = 0; i < IMAGES; i += 1) {
      const n = 1 + (i % PAGES);
      const a = await image(plain, n);
      const b = await image(marked, n);
      if (a.status !== 200 || b.status !== 200) throw new Error(`a page image answered ${a.status} / ${b.status}`);
      times.plain.push(a.ms);
      times.marked.push(b.ms);
    }

    // A burst: 64 watermarked pages asked for at once.
    const sampler = samplePeak(() => rssOf(pid) + childrenRss(pid));
    const t0 = performance.now();
    const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => image(marked, 1 + (i % PAGES))));
    const burstMs = performance.now() - t0;
    sampler.stop();

    // The watermarked download.
    const d0 = performance.now();
    const pdf = await fetch(`${base}/l/${marked}/download`, { headers });
    const bytes = (await pdf.arrayBuffer()).byteLength;
    const downloadMs = performance.now() - d0;
    if (pdf.status !== 200) throw new Error(`the download answered ${pdf.status}`);

    printFigures(DB, {
      deck: { file: path.relative(ROOT, DECK), pages: PAGES },
      plainPage: latency(times.plain),
      watermarkedPage: latency(times.marked),
      burst: {
        requests: BURST,
        drawn: burst.filter((r) => r.status === 200).length,
        overloaded: burst.filter((r) => r.status === 503).length,
        other: burst.filter((r) => r.status !== 200 && r.status !== 503).length,
        slowestMs: Math.round(Math.max(...burst.map((r) => r.ms))),
        totalMs: Math.round(burstMs),
        peakRssMB: Math.round(sampler.peak() / 1e6),
      },
      download: { pages: PAGES, bytes, ms: Math.round(downloadMs), msPerPage: Math.round(downloadMs / PAGES) },
    });
  } finally {
    await server.stop();
  }
}

/** The resident sets of a process's children (the page renderer's), in bytes. */
function childrenRss(pid: number): number {
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.reduce((sum, child) => sum + rssOf(Number(child)) + childrenRss(Number(child)), 0);
  } catch {
    return 0;
  }
}

runMain(main);
