/**
 * Reading analytics figures: a link with 100,000 views (each reading 1 to 12 pages of the 100-page
 * bench deck, about 4 on average, as the public viewer records them, with two versions of the file)
 * beside another link of the same file with as many, then `GET …/link/{id}/analytics` asked again and
 * again: the time of its answer (every version's figures and the first page of viewers), of one
 * version's, of a deep page of viewers, and of the CSV of every viewer. The views are written
 * straight into the database (100,000 views through the beacons would take the bench many minutes
 * and measure the beacons); a fresh database of the dialect, the app built in-process (as the tests
 * build it) and called through Fastify's inject.
 *   node --import tsx bench/analytics.ts [--db sqlite|postgres] [--views N] [--rounds N]
 * `npm run bench` runs it too (the "link analytics" row).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Insertable, sql } from 'kysely';
import type { Database } from '../src/db/index.ts';
import { option } from './options.ts';
import { withInProcessApp } from './support/in-process.ts';

const DB = option('db', 'sqlite');
const VIEWS = Number(option('views', '100000'));
const ROUNDS = Number(option('rounds', '20'));
const DECK = path.resolve(import.meta.dirname, 'fixtures/deck-100.pdf');
const CHUNK = 1000;

/** A small deterministic generator, so that every run measures the same views. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0) * 10) / 10;
  return { p50ms: at(0.5), p95ms: at(0.95), maxMs: at(1) };
};

async function main(): Promise<void> {
  await withInProcessApp(DB, 'analytics-', async ({ ctx, app, auth, appId }) => {
    const boundary = '----rapportbench';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="deck-100.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      fs.readFileSync(DECK),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await app.inject({
      method: 'POST',
      url: `/api/v1.7/app/${appId}/files`,
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    const fileId = uploaded.json().data.id as string;
    const makeLink = async (name: string) =>
      (await app.inject({ method: 'POST', url: `/api/v1.7/app/${appId}/links`, headers: auth, payload: { name, file_id: fileId } })).json()
        .data.id as string;
    const linkId = await makeLink('Measured');
    const other = await makeLink('Beside it');

    const loadStarted = performance.now();
    const db = ctx.database.db;
    const next = random(42);
    const start = Date.now() - VIEWS * 60_000;
    let durations = 0;
    for (const link of [other, linkId]) {
      for (let i = 0; i < VIEWS; i += CHUNK) {
        const views: Insertable<Database['link_view_logs']>[] = [];
        const pages: Insertable<Database['link_view_durations']>[] = [];
        for (let j = i; j < Math.min(i + CHUNK, VIEWS); j += 1) {
          const id = `${link}-${j}`;
          const version = j % 5 < 3 ? 1 : 2;
          let count = 1;
          while (count < 12 && next() < 0.75) count += 1;
          let total = 0;
          for (let n = 1; n <= count; n += 1) {
            const ms = Math.floor(next() * 60_000);
            total += ms;
            const at = start + j * 60_000 + n * 1000;
            pages.push({
              app_id: appId,
              link_view_log_id: id,
              position: n - 1,
              id: `${id}:${n - 1}`,
              file_id: fileId,
              file_name: 'deck-100.pdf',
              file_url: null,
              page_index: String(n),
              duration: String(ms),
              sort_index: n - 1,
              created_at: at,
              ended_at: at,
              total: ms,
              link_id: link,
              file_version: version,
            });
          }
          if (link === linkId) durations += count;
          const visitor = `visitor-${Math.floor(j / 3)}`;
          views.push({
            id,
            app_id: appId,
            link_id: link,
            viewer_id: visitor,
            viewer_name: null,
            view_time: start + j * 60_000,
            total_duration: total,
            total_page: count,
            created_at: start + j * 60_000,
            visitor_id: visitor,
            beacon_seq: count + 2,
            beacon_at: start + j * 60_000 + count * 1000,
            closed_at: start + j * 60_000 + count * 1000,
            left_at: start + j * 60_000 + count * 1000,
            file_id: fileId,
            file_version: version,
            file_page_count: 100,
            last_page: count,
          });
        }
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('link_view_logs').values(views).execute();
          for (let k = 0; k < pages.length; k += 500)
            await trx
              .insertInto('link_view_durations')
              .values(pages.slice(k, k + 500))
              .execute();
        });
      }
    }
    if (DB === 'postgres') {
      // What the write path's statistics would have gathered by now (src/db/planner-statistics.ts).
      await sql`analyze`.execute(db);
    }
    console.error(
      `${2 * VIEWS} views (${durations} pages read on the measured link) stored in ${Math.round(performance.now() - loadStarted)} ms`,
    );

    const time = async (url: string) => {
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url, headers: auth });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200 || String(res.headers['content-type'] ?? '').startsWith('application/json') === url.includes('csv')) {
        throw new Error(`analytics failed: ${res.body.slice(0, 300)}`);
      }
      if (!url.includes('csv') && res.json().status !== 1) throw new Error(`analytics failed: ${res.body.slice(0, 300)}`);
      return { ms, bytes: res.rawPayload.length };
    };
    const base = `/api/v1.7/app/${appId}/link/${linkId}/analytics`;
    const measure = async (url: string, rounds: number) => {
      await time(url);
      const ms: number[] = [];
      let bytes = 0;
      for (let r = 0; r < rounds; r += 1) {
        const t = await time(url);
        ms.push(t.ms);
        bytes = t.bytes;
      }
      return { ...stats(ms), bytes };
    };
    const out = {
      database: DB,
      views: VIEWS,
      pagesRead: durations,
      rounds: ROUNDS,
      analytics: await measure(base, ROUNDS),
      oneVersion: await measure(`${base}?version=1`, ROUNDS),
      deepViewerPage: await measure(`${base}?start_index=30000&count=100`, ROUNDS),
      csv: await measure(`${base}?format=csv`, Math.max(1, Math.floor(ROUNDS / 10))),
    };
    console.log(JSON.stringify(out, null, 2));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
