/**
 * Share-link figures: the real server (as `npm start` runs it) on a fresh database, a 3-page deck
 * shared by a link, then with autocannon:
 * - the viewer page, `GET /l/{shareToken}`, at 64 connections (it writes nothing; target p99 ≤ 20 ms);
 * - beacons at 32 connections, each connection one view: its open, then heartbeats with growing
 *   dwell, every one a small durable write through the group commit (ingestion's single-record targets).
 *   node --import tsx bench/viewer.ts [--db sqlite|postgres] [--duration S]
 * - the site snippet's collect calls (docs/site-tracking.md) at 32 connections, each connection one
 *   visitor of an allowed origin: a page view, its leave and a key behaviour per call; half the
 *   visitors identified (their records are a customer's behaviour records), half anonymous (kept).
 * `npm run bench` runs it too (the "viewer page", "beacons" and "collect" rows).
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import { PHONE_UA } from '../test/helpers/browser.ts';
import { sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { measure } from './support/cannon.ts';
import { printFigures, runMain } from './support/report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const DURATION = Number(option('duration', '10'));
const DECK = path.join(ROOT, 'test/fixtures/files/deck.pdf');
const UA = PHONE_UA;

async function main(): Promise<void> {
  const server = await startBenchServer({ db: DB, label: 'viewer' });
  try {
    const { base } = server;
    const { auth, json, appId } = await server.signIn('Viewer bench');
    const body = new FormData();
    body.append('file', new Blob([fs.readFileSync(DECK)], { type: 'application/pdf' }), 'deck.pdf');
    const fileId = (
      (await (await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: auth, body })).json()) as {
        data: { id: string };
      }
    ).data.id;
    for (;;) {
      const f = (await (await fetch(`${base}/api/v1.7/app/${appId}/file/${fileId}`, { headers: auth })).json()) as {
        data: { status: string };
      };
      if (f.data.status === 'ready') break;
      if (f.data.status === 'failed') throw new Error('the deck failed to render');
      await sleep(50);
    }
    const link = (
      (await (
        await fetch(`${base}/api/v1.7/app/${appId}/links`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ name: 'Bench deck', file_id: fileId }),
        })
      ).json()) as { data: { shareToken: string } }
    ).data;
    const pagePath = `/l/${link.shareToken}`;
    const { pid } = server;

    // The viewer page: 64 connections, a phone's browser.
    await measure(pid, { url: `${base}${pagePath}`, connections: 64, duration: 2, headers: { 'user-agent': UA } }, (s) => s === 200);
    const page = await measure(
      pid,
      { url: `${base}${pagePath}`, connections: 64, duration: DURATION, headers: { 'user-agent': UA } },
      (s) => s === 200,
    );

    // Beacons: a view per connection (tokens from page loads), opened, then heartbeats.
    const CONNECTIONS = 32;
    const tokens: string[] = [];
    for (let i = 0; i < CONNECTIONS * 4; i += 1) {
      const html = await (await fetch(`${base}${pagePath}`, { headers: { 'user-agent': UA } })).text();
      tokens.push(String((JSON.parse(/id="rapport-viewer">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { token: string }).token));
    }
    let nextToken = 0;
    const beaconRequest = (label: string): autocannon.Request => ({
      method: 'POST',
      path: `${pagePath}/events`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA },
      setupRequest(req, ctx) {
        const c = ctx as { token?: string; seq?: number; t0?: number; label?: string };
        if (c.token === undefined || c.label !== label) {
          c.token = tokens[nextToken++ % tokens.length];
          c.seq = 0;
          c.t0 = Date.now();
          c.label = label;
        }
        c.seq = (c.seq ?? 0) + 1;
        const elapsed = Date.now() - (c.t0 ?? 0);
        const page = 1 + (Math.floor(c.seq / 50) % 3);
        const beacon =
          c.seq === 1
            ? { type: 'open', seq: 1, token: c.token, page: 1 }
            : { type: c.seq % 50 === 0 ? 'page' : 'hb', seq: c.seq, token: c.token, page, dwell: { [page]: elapsed } };
        return { ...req, body: JSON.stringify(beacon) };
      },
    });
    const accepted = (s: number, b: string) => s === 200 && b.startsWith('{"status":1');
    await measure(pid, { url: base, connections: CONNECTIONS, duration: 2, requests: [beaconRequest('warm')] }, accepted);
    const beacons = await measure(
      pid,
      { url: base, connections: CONNECTIONS, duration: DURATION, requests: [beaconRequest('run')] },
      accepted,
    );

    // The site snippet's collect calls: the project's origin allowed, a customer to identify as.
    const ORIGIN = 'https://shop.example.com';
    await fetch(`${base}/api/v1.7/app/${appId}`, { method: 'POST', headers: json, body: JSON.stringify({ site_origins: ORIGIN }) });
    const siteSettings = (
      (await (await fetch(`${base}/api/v1.7/app/${appId}/site`, { headers: auth })).json()) as {
        data: { siteKey: string; siteSecret: string };
      }
    ).data;
    await fetch(`${base}/api/v1.7/app/${appId}/events`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(
        Array.from({ length: CONNECTIONS }, (_, i) => ({
          event_type: 'create',
          domainType: 'Customer',
          domainId: `bench-site-${i}`,
          body: { name: `Site visitor ${i}` },
        })),
      ),
    });
    let nextVisitor = 0;
    const collectRequest = (label: string): autocannon.Request => ({
      method: 'POST',
      path: `/t/collect?k=${siteSettings.siteKey}`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
      setupRequest(req, ctx) {
        const c = ctx as { visitor?: string; visit?: string; n?: number; i?: number; label?: string };
        const now = Date.now();
        const events: Record<string, unknown>[] = [];
        if (c.visitor === undefined || c.label !== label) {
          c.i = nextVisitor++;
          c.visitor = randomBytes(16).toString('base64url');
          c.visit = randomBytes(16).toString('base64url');
          c.n = 0;
          c.label = label;
          events.push({ t: 'visit', at: now, url: `${ORIGIN}/`, title: 'Home', ref: 'https://www.example.org/', kw: '' });
          if (c.i % 2 === 0) {
            const customerId = `bench-site-${c.i % CONNECTIONS}`;
            events.push({
              t: 'identify',
              customerId,
              hash: createHmac('sha256', siteSettings.siteSecret).update(customerId).digest('hex'),
            });
          }
        }
        c.n = (c.n ?? 0) + 1;
        const pageId = randomBytes(12).toString('base64url');
        events.push(
          { t: 'page', id: pageId, at: now, url: `${ORIGIN}/p/${c.n % 20}`, title: `Page ${c.n % 20}` },
          { t: 'leave', id: pageId, at: now, since: now - 1000, ms: 900, url: `${ORIGIN}/p/${c.n % 20}`, title: `Page ${c.n % 20}` },
          { t: 'act', id: randomBytes(12).toString('base64url'), at: now, a: 'download_file', target: `${ORIGIN}/brochure.pdf` },
        );
        return { ...req, body: JSON.stringify({ v: c.visitor, s: c.visit, e: events }) };
      },
    });
    await measure(pid, { url: base, connections: CONNECTIONS, duration: 2, requests: [collectRequest('warm')] }, accepted);
    const collect = await measure(
      pid,
      { url: base, connections: CONNECTIONS, duration: DURATION, requests: [collectRequest('run')] },
      accepted,
    );

    printFigures(DB, { seconds: DURATION, viewerPage: page, beacons, collect });
  } finally {
    await server.stop();
  }
}

runMain(main);
