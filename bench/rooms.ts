/**
 * Data room figures (docs/rooms.md): the real server (as `npm start` runs it) on a fresh database, a
 * room of three documents in folders shared by a link of type 4, then with autocannon at 64
 * connections, a phone's browser:
 * - the room's page, `GET /l/{shareToken}` (the link, its gates, the room, its tree with each file's
 *   facts; writes nothing): "room open", target p99 ≤ 20 ms, as the file viewer's page;
 * - a document's page, `GET /l/{shareToken}/doc/{file-id}` (the same, and the file checked against
 *   the room): target p99 ≤ 20 ms.
 *   node --import tsx bench/rooms.ts [--db sqlite|postgres] [--duration S]
 * `npm run bench` runs it too (the "room open" and "room document" rows).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PHONE_UA } from '../test/helpers/browser.ts';
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { measure } from './support/cannon.ts';
import { printFigures, runMain } from './support/report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const DURATION = Number(option('duration', '10'));
const FILES = ['deck.pdf', 'chinese.pdf', 'photo.png'];

/** Uploads a fixture and waits until it is rendered: its id. */
async function uploaded(server: BenchServer, session: { appId: string; auth: { authorization: string } }, name: string): Promise<string> {
  const body = new FormData();
  body.append('file', new Blob([fs.readFileSync(path.join(ROOT, 'test/fixtures/files', name))]), name);
  const res = await fetch(`${server.base}/api/v1.7/app/${session.appId}/files`, { method: 'POST', headers: session.auth, body });
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  for (;;) {
    const f = (await (await fetch(`${server.base}/api/v1.7/app/${session.appId}/file/${id}`, { headers: session.auth })).json()) as {
      data: { status: string };
    };
    if (f.data.status === 'ready') return id;
    if (f.data.status === 'failed') throw new Error(`${name} failed to render`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const server = await startBenchServer({ db: DB, label: 'rooms' });
  try {
    const session = await server.signIn('Rooms bench');
    const ids: string[] = [];
    for (const name of FILES) ids.push(await uploaded(server, session, name));
    const call = async (url: string, body: unknown) =>
      (
        (await (await fetch(`${server.base}${url}`, { method: 'POST', headers: session.json, body: JSON.stringify(body) })).json()) as {
          data: { id: string; shareToken: string };
        }
      ).data;
    const room = await call(`/api/v1.7/app/${session.appId}/rooms`, {
      name: 'Bench room',
      items: [
        { type: 'folder', name: 'Financials', items: [{ type: 'file', file_id: ids[0] }] },
        { type: 'folder', name: 'Market', items: [{ type: 'folder', name: 'China', items: [{ type: 'file', file_id: ids[1] }] }] },
        { type: 'file', file_id: ids[2] },
      ],
    });
    const link = await call(`/api/v1.7/app/${session.appId}/links`, { name: 'Bench room link', type: 4, room_id: room.id });
    const headers = { 'user-agent': PHONE_UA };
    const roomUrl = `${server.base}/l/${link.shareToken}`;
    const docUrl = `${roomUrl}/doc/${ids[0]}`;
    const ok = (s: number) => s === 200;
    await measure(server.pid, { url: roomUrl, connections: 64, duration: 2, headers }, ok);
    const roomOpen = await measure(server.pid, { url: roomUrl, connections: 64, duration: DURATION, headers }, ok);
    await measure(server.pid, { url: docUrl, connections: 64, duration: 2, headers }, ok);
    const roomDocument = await measure(server.pid, { url: docUrl, connections: 64, duration: DURATION, headers }, ok);
    printFigures(DB, { seconds: DURATION, roomOpen, roomDocument });
  } finally {
    await server.stop();
  }
}

runMain(main);
