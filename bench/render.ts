/**
 * Page rendering figures: a 100-page deck (bench/fixtures/deck-100.pdf, made by `npm run
 * fixtures:files`) uploaded to the real server (as `npm start` runs it), then polled: how long until
 * its first page is served, how long until every page is rendered, pages per second. Twice: with the
 * renderer's thread not yet started (a server that has rendered nothing for a while), then started.
 *   node --import tsx bench/render.ts [--db sqlite|postgres]
 * `npm run bench` runs it too (the "PDF render" row).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { runMain, samplePeak } from './support/report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const DECK = path.join(ROOT, 'bench/fixtures/deck-100.pdf');

interface Round {
  uploadMs: number;
  firstPageMs: number;
  fullRenderMs: number;
  pagesPerSecond: number;
  pages: number;
  peakRssMB: number;
}

async function main(): Promise<void> {
  if (!fs.existsSync(DECK)) throw new Error(`${DECK} is missing: npm run fixtures:files`);
  const server = await startBenchServer({ db: DB, label: 'render' });
  try {
    const { base } = server;
    const { auth, appId } = await server.signIn('Render bench');
    const deck = fs.readFileSync(DECK);

    const round = async (): Promise<Round> => {
      const body = new FormData();
      body.append('file', new Blob([deck], { type: 'application/pdf' }), 'deck-100.pdf');
      const sampler = samplePeak(server.rss);
      try {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: auth, body });
        const answer = (await res.json()) as { status: number; data: { id: string; pageCount: number } };
        if (answer.status !== 1) throw new Error(`upload refused: ${JSON.stringify(answer)}`);
        const uploadMs = performance.now() - t0;
        const id = answer.data.id;
        // The first page as a viewer would get it: the image served.
        let firstPageMs = 0;
        for (;;) {
          const page = await fetch(`${base}/api/v1.7/app/${appId}/file/${id}/page/1?width=phone`, { headers: auth });
          const type = page.headers.get('content-type') ?? '';
          await page.arrayBuffer();
          if (type.startsWith('image/')) {
            firstPageMs = performance.now() - t0;
            break;
          }
          await sleep(10);
        }
        for (;;) {
          const file = (await (await fetch(`${base}/api/v1.7/app/${appId}/file/${id}`, { headers: auth })).json()) as {
            data: { status: string; renderedPages: number; failure: string | null };
          };
          if (file.data.status === 'failed') throw new Error(`rendering failed: ${file.data.failure}`);
          if (file.data.status === 'ready') break;
          await sleep(25);
        }
        const fullRenderMs = performance.now() - t0;
        const pages = answer.data.pageCount;
        return {
          uploadMs: Math.round(uploadMs),
          firstPageMs: Math.round(firstPageMs),
          fullRenderMs: Math.round(fullRenderMs),
          // Rendering alone: from the upload's answer to the last page.
          pagesPerSecond: Number((pages / ((fullRenderMs - uploadMs) / 1000)).toFixed(1)),
          pages,
          peakRssMB: Math.round(sampler.peak() / 1e6),
        };
      } finally {
        sampler.stop();
      }
    };

    const cold = await round();
    const warm = await round();
    const bytes = deck.length;
    const summary = {
      database: DB,
      deck: { file: path.relative(ROOT, DECK), bytes, pages: cold.pages },
      machine: { cpus: os.cpus().length, node: process.version },
      rendererNotStarted: cold,
      rendererStarted: warm,
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    await server.stop();
  }
}

runMain(main);
