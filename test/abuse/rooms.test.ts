// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/files.ts';
import {
  type AbuseProject,
  type AbuseServer,
  type AbuseUser,
  apiCall,
  readScalar,
  salesTeam,
  underAttack,
  useAbuseServer,
} from './harness.ts';

/**
 * Data rooms under attack (docs/rooms.md): another project's file put into a room, and its Master
 * naming this project's room; a Sales member reading, changing, deleting or sharing a colleague's
 * room; a room link's reader naming, in beacons and page addresses, files that are not the room's
 * (the project's others, another project's, made-up ids), many times over while another member works.
 */
const t = useAbuseServer({
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_VIEWER: '100000',
  RATE_LIMIT_BEACON_IP: '100000',
  RATE_LIMIT_IP: '100000',
});
let owner: AbuseUser;
let sales: AbuseUser;
let colleague: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;
let deck: string;
let outside: string;
let strangersFile: string;
let colleaguesRoom: string;
let share: string;

const UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const call = (user: AbuseUser | null, method: string, path: string, body?: unknown) => apiCall(t.server, user, method, path, body);
const app = (p: AbuseProject = project) => `/api/v1.7/app/${p.appId}`;
const count = async (table: 'rooms' | 'room_items' | 'link_view_durations' | 'link_view_logs', appId = project.appId) =>
  Number(await readScalar(t.server, `select count(*) from ${table} where app_id = ?`, [appId]));

async function uploaded(s: AbuseServer, user: AbuseUser, p: AbuseProject, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fixture(name)]), name);
  const res = await fetch(`${s.base}${app(p)}/files`, { method: 'POST', headers: user.auth, body: form });
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  for (let i = 0; i < 600; i += 1) {
    const file = (await call(user, 'GET', `${app(p)}/file/${id}`)).body.data;
    if (file?.status === 'ready') return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not rendered`);
}

/** The room's rows as stored, to compare before and after an attack. */
const roomState = async (id: string) => [
  await readScalar(t.server, 'select name from rooms where id = ?', [id]),
  await readScalar(t.server, 'select count(*) from room_items where room_id = ?', [id]),
];

beforeAll(async () => {
  ({ owner, sales, colleague, stranger, project, other } = await salesTeam(t.server, 'Rooms'));
  deck = await uploaded(t.server, sales, project, 'deck.pdf');
  outside = await uploaded(t.server, sales, project, 'photo.png');
  strangersFile = await uploaded(t.server, stranger, other, 'photo.png');
  const room = await call(colleague, 'POST', `${app()}/rooms`, {
    name: "The colleague's room",
    items: [{ type: 'folder', name: 'Secret', items: [{ type: 'file', file_id: deck }] }],
  });
  colleaguesRoom = room.body.data?.id as string;
  const mine = await call(sales, 'POST', `${app()}/rooms`, { name: 'Mine', items: [{ type: 'file', file_id: deck }] });
  const link = await call(sales, 'POST', `${app()}/links`, { name: 'Room link', type: 4, room_id: mine.body.data?.id });
  share = String(link.body.data?.shareToken);
}, 120_000);

describe('data rooms under attack', () => {
  it("refuse another project's file, and another project's Master naming this project's room, changing nothing", async () => {
    const before = [await count('rooms'), await count('room_items'), await roomState(colleaguesRoom)];
    const planted = await call(owner, 'PUT', `${app()}/room/${colleaguesRoom}`, { items: [{ type: 'file', file_id: strangersFile }] });
    expect(planted.body).toMatchObject({ status: 0, code: 'file_not_found' });
    const made = await call(owner, 'POST', `${app()}/rooms`, { name: 'Planted', items: [{ type: 'file', file_id: strangersFile }] });
    expect(made.body).toMatchObject({ status: 0, code: 'file_not_found' });
    // The stranger, Master of their own project, with this project's room and file ids.
    const unknown = (await call(stranger, 'GET', `${app(other)}/room/no-such-room`)).body;
    expect(unknown).toMatchObject({ status: 0, code: 'room_not_found' });
    for (const a of [
      await call(stranger, 'GET', `${app(other)}/room/${colleaguesRoom}`),
      await call(stranger, 'PUT', `${app(other)}/room/${colleaguesRoom}`, { name: 'Taken' }),
      await call(stranger, 'DELETE', `${app(other)}/room/${colleaguesRoom}`),
    ])
      expect(a.body).toEqual(unknown);
    const theirLink = await call(stranger, 'POST', `${app(other)}/links`, { name: 'x', type: 4, room_id: colleaguesRoom });
    expect(theirLink.body).toMatchObject({ status: 0, code: 'room_not_found' });
    const theirRoom = await call(stranger, 'POST', `${app(other)}/rooms`, { name: 'x', items: [{ type: 'file', file_id: deck }] });
    expect(theirRoom.body).toMatchObject({ status: 0, code: 'file_not_found' });
    expect([await count('rooms'), await count('room_items'), await roomState(colleaguesRoom)]).toEqual(before);
  });

  it("keep a Sales member out of a colleague's room: every route answers as for an unknown room", async () => {
    const before = await roomState(colleaguesRoom);
    const unknown = (await call(sales, 'GET', `${app()}/room/no-such-room`)).body;
    for (const a of [
      await call(sales, 'GET', `${app()}/room/${colleaguesRoom}`),
      await call(sales, 'PUT', `${app()}/room/${colleaguesRoom}`, { name: 'Taken', items: [] }),
      await call(sales, 'DELETE', `${app()}/room/${colleaguesRoom}`),
    ])
      expect(a.body).toEqual(unknown);
    const listed = (await call(sales, 'GET', `${app()}/rooms?count=100`)).body.data as unknown as { id: string }[];
    expect(listed.map((r) => r.id)).not.toContain(colleaguesRoom);
    // Sharing it: by a new link, or by editing their own link to show it.
    expect((await call(sales, 'POST', `${app()}/links`, { name: 'x', type: 4, room_id: colleaguesRoom })).body.code).toBe('room_not_found');
    const own = await call(sales, 'POST', `${app()}/links`, { name: 'Own', type: 3, website: 'https://example.com/' });
    const edit = await call(sales, 'PUT', `${app()}/link/${own.body.data?.id}`, { type: 4, room_id: colleaguesRoom });
    expect(edit.body.code).toBe('room_not_found');
    expect(await roomState(colleaguesRoom)).toEqual(before);
    expect(Number(await readScalar(t.server, 'select count(*) from links where room_id = ?', [colleaguesRoom]))).toBe(0);
  });

  it("answer a reader's forged documents with the 404 and beacon_invalid, 1,200 times, and write nothing", async () => {
    const headers = { 'user-agent': UA };
    const page = await fetch(`${t.server.base}/l/${share}`, { headers });
    const token = /"token":"([^"]+)"/.exec(await page.text())?.[1] as string;
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const open = await fetch(`${t.server.base}/l/${share}/events`, {
      method: 'POST',
      headers: { ...headers, cookie, 'content-type': 'text/plain' },
      body: JSON.stringify({ type: 'open', seq: 1, token, page: 1 }),
    });
    expect(((await open.json()) as { status: number }).status).toBe(1);
    const before = [await count('link_view_durations'), await count('link_view_logs')];
    const forged = [outside, strangersFile, 'made-up', deck.replace(/.$/, (c) => (c === '0' ? '1' : '0'))];
    const outcome = await underAttack(
      t.server,
      async () => {
        const answers: number[] = [];
        for (let round = 0; round < 100; round += 1) {
          await Promise.all(
            forged.map(async (doc, i) => {
              const beacon = await fetch(`${t.server.base}/l/${share}/events`, {
                method: 'POST',
                headers: { ...headers, cookie, 'content-type': 'text/plain' },
                body: JSON.stringify({ type: 'hb', seq: 2 + round * 4 + i, token, page: 1, doc, dwell: { 1: 5000 } }),
              });
              const body = (await beacon.json()) as { code?: string };
              answers.push(beacon.status === 400 && body.code === 'beacon_invalid' ? 400 : beacon.status);
              for (const path of [`/l/${share}/doc/${encodeURIComponent(doc)}`, `/l/${share}/doc/${encodeURIComponent(doc)}/page/1`]) {
                const res = await fetch(`${t.server.base}${path}`, { headers: { ...headers, cookie } });
                await res.arrayBuffer();
                answers.push(res.status);
              }
            }),
          );
        }
        return answers;
      },
      () => fetch(`${t.server.base}${app()}/rooms`, { headers: owner.auth }),
    );
    expect(t.server.alive()).toBe(true);
    expect(new Set(outcome.result)).toEqual(new Set([400, 404]));
    expect(outcome.result.filter((s) => s === 400)).toHaveLength(400);
    expect(outcome.worstMs).toBeLessThan(1000);
    expect([await count('link_view_durations'), await count('link_view_logs')]).toEqual(before);
    // The room's own document still opens.
    expect((await fetch(`${t.server.base}/l/${share}/doc/${deck}/page/1`, { headers: { ...headers, cookie } })).status).toBe(200);
  });
});
