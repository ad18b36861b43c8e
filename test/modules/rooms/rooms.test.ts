// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { type LinkData, createLink, renderedFile } from '../../helpers/links.ts';

/**
 * Data rooms through the API (docs/rooms.md): any member makes one; the Master and Admins change any,
 * Sales members their own (another's is room_not_found, as an unknown one); the tree is replaced
 * whole, checked (folders named and at most 4 deep, 500 items, each file once, files of the project);
 * a room link (type 4) needs a room the member may share; a deleted room's links are disabled.
 */
const t = useTestServer();
let p: HistoryProject;
let other: HistoryProject;
let deck: string;
let photo: string;
let otherFile: string;

interface Room {
  id: string;
  appId: string;
  name: string;
  creatorId: string;
  items: unknown[];
  createdAt: string;
  updatedAt: string;
}

const url = (appId: string, rest = '') => `/api/v1.7/app/${appId}${rest}`;

async function made(token: string, body: Record<string, unknown>, appId = p.appId): Promise<Room> {
  const res = await t.server.api.post(url(appId, '/rooms'), body, { token });
  expect(res.json(), res.body).toMatchObject({ status: 1 });
  return res.json().data as Room;
}

beforeAll(async () => {
  [p, other] = await Promise.all([historyProject(t.server), historyProject(t.server)]);
  deck = await renderedFile(t.server, p, p.sales.token);
  photo = await renderedFile(t.server, p, p.sales.token, 'photo.png');
  otherFile = await renderedFile(t.server, other, other.sales.token);
});

describe('rooms', () => {
  it('are made by any member, with a tree of folders and the project files, each file as it is now', async () => {
    const room = await made(p.sales.token, {
      name: '  Acme due diligence ',
      items: [
        {
          type: 'folder',
          name: 'Contracts',
          items: [
            { type: 'file', file_id: photo },
            { type: 'folder', name: 'Drafts' },
          ],
        },
        { type: 'file', file_id: deck },
      ],
    });
    expect(room).toEqual({
      id: expect.any(String),
      appId: p.appId,
      name: 'Acme due diligence',
      creatorId: String(p.sales.id),
      items: [
        {
          type: 'folder',
          name: 'Contracts',
          items: [
            { type: 'file', fileId: photo, name: 'photo.png', pageCount: 1, version: 1, status: 'ready', renderedPages: 1 },
            { type: 'folder', name: 'Drafts', items: [] },
          ],
        },
        { type: 'file', fileId: deck, name: 'deck.pdf', pageCount: 3, version: 1, status: 'ready', renderedPages: 3 },
      ],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updatedAt: room.createdAt,
    });
    const read = await t.server.api.get(url(p.appId, `/room/${room.id}`), { token: p.admin.token });
    expect(read.json()).toEqual({ status: 1, data: room });
  });

  it('are listed newest first and paged: the Master and Admins see all, Sales their own', async () => {
    const a = await made(p.sales2.token, { name: 'Sales2 room' });
    const b = await made(p.master.token, { name: 'Master room' });
    const all = (await t.server.api.get(url(p.appId, '/rooms'), { token: p.admin.token, query: { count: 2 } })).json().data as Room[];
    expect(all.map((r) => r.id)).toEqual([b.id, a.id]);
    const next = (await t.server.api.get(url(p.appId, '/rooms'), { token: p.admin.token, query: { start_index: 2 } })).json()
      .data as Room[];
    expect(next.map((r) => r.name)).toEqual(['Acme due diligence']);
    const own = (await t.server.api.get(url(p.appId, '/rooms'), { token: p.sales2.token })).json().data as Room[];
    expect(own.map((r) => r.id)).toEqual([a.id]);
    const outsider = await t.server.api.get(url(p.appId, '/rooms'), { token: p.outsider.token });
    expect(outsider.statusCode).toBe(403);
  });

  it("are a Sales member's own: a colleague's room is room_not_found, as an unknown one", async () => {
    const room = await made(p.sales.token, { name: 'Private' });
    for (const [method, body] of [
      ['get', undefined],
      ['put', { name: 'Taken' }],
      ['delete', undefined],
    ] as const) {
      const res =
        method === 'put'
          ? await t.server.api.put(url(p.appId, `/room/${room.id}`), body, { token: p.sales2.token })
          : await t.server.api[method](url(p.appId, `/room/${room.id}`), { token: p.sales2.token });
      expect(res.json(), method).toMatchObject({ status: 0, code: 'room_not_found' });
      const unknown =
        method === 'put'
          ? await t.server.api.put(url(p.appId, '/room/nope'), body, { token: p.sales2.token })
          : await t.server.api[method](url(p.appId, '/room/nope'), { token: p.sales2.token });
      expect(unknown.json().code).toBe('room_not_found');
    }
    // Another project's room, even to its own project's Master, is not found here.
    const elsewhere = await made(other.master.token, { name: 'Elsewhere' }, other.appId);
    expect((await t.server.api.get(url(p.appId, `/room/${elsewhere.id}`), { token: p.master.token })).json().code).toBe('room_not_found');
    expect((await t.server.api.get(url(p.appId, `/room/${room.id}`), { token: p.sales.token })).json().status).toBe(1);
  });

  it('change by the fields given: a new tree replaces the whole tree, the name stays', async () => {
    const room = await made(p.sales.token, { name: 'Edits', items: [{ type: 'file', file_id: deck }] });
    const res = await t.server.api.put(
      url(p.appId, `/room/${room.id}`),
      { items: [{ type: 'folder', name: 'Only', items: [{ type: 'file', file_id: photo }] }] },
      { token: p.master.token },
    );
    expect(res.json().data).toMatchObject({ name: 'Edits', items: [{ type: 'folder', name: 'Only', items: [{ fileId: photo }] }] });
    const renamed = await t.server.api.put(url(p.appId, `/room/${room.id}`), { name: 'Renamed' }, { token: p.sales.token });
    expect(renamed.json().data).toMatchObject({ name: 'Renamed', items: [{ type: 'folder', name: 'Only' }] });
  });

  it('refuse a bad tree and change nothing', async () => {
    const room = await made(p.sales.token, { name: 'Strict', items: [{ type: 'file', file_id: deck }] });
    const put = (body: unknown) => t.server.api.put(url(p.appId, `/room/${room.id}`), body, { token: p.sales.token });
    const deep = (n: number): unknown =>
      n === 0 ? { type: 'file', file_id: deck } : { type: 'folder', name: `L${n}`, items: [deep(n - 1)] };
    expect((await put({ items: [deep(4)] })).json().status).toBe(1);
    expect((await put({ items: [deep(5)] })).json()).toMatchObject({ status: 0, code: 'Bad Request' });
    expect((await put({ items: [{ type: 'folder', name: '  ' }] })).json()).toMatchObject({ status: 0, code: 'items_invalid' });
    const twice = {
      items: [
        { type: 'file', file_id: deck },
        { type: 'folder', name: 'Again', items: [{ type: 'file', file_id: deck }] },
      ],
    };
    expect((await put(twice)).json()).toMatchObject({ status: 0, code: 'items_invalid' });
    const many = {
      items: Array.from({ length: 2 }, () => ({
        type: 'folder',
        name: 'Box',
        items: Array.from({ length: 250 }, () => ({ type: 'folder', name: 'x' })),
      })),
    };
    expect((await put(many)).json()).toMatchObject({ status: 0, code: 'items_invalid' });
    // Another project's file, and no file at all.
    expect((await put({ items: [{ type: 'file', file_id: otherFile }] })).json()).toMatchObject({ status: 0, code: 'file_not_found' });
    expect((await put({ items: [{ type: 'file', file_id: 'nope' }] })).json()).toMatchObject({ status: 0, code: 'file_not_found' });
    expect((await put({ name: '' })).json()).toMatchObject({ status: 0, code: 'name_required' });
    expect((await t.server.api.post(url(p.appId, '/rooms'), {}, { token: p.sales.token })).json().code).toBe('name_required');
    const read = (await t.server.api.get(url(p.appId, `/room/${room.id}`), { token: p.sales.token })).json().data as Room;
    expect(read).toMatchObject({ name: 'Strict', items: [{ type: 'folder', name: 'L4' }] });
  });
});

describe('room links', () => {
  it('show a room the member may share: Sales their own, the Master and Admins any; else room_not_found', async () => {
    const mine = await made(p.sales.token, { name: 'Shared', items: [{ type: 'file', file_id: deck }] });
    const res = await createLink(t.server, p.appId, p.sales.token, { name: 'Room link', type: 4, room_id: mine.id }, true);
    const link = res.json().data as LinkData;
    expect(link).toMatchObject({ type: 4, roomId: mine.id, file1: null, website: null, url: expect.stringContaining('/l/') });
    expect((await createLink(t.server, p.appId, p.sales2.token, { name: 'Not mine', type: 4, room_id: mine.id })).json()).toMatchObject({
      status: 0,
      code: 'room_not_found',
    });
    expect((await createLink(t.server, p.appId, p.admin.token, { name: 'Admin', type: 4, room_id: mine.id })).json().status).toBe(1);
    expect((await createLink(t.server, p.appId, p.sales.token, { name: 'None', type: 4 })).json().code).toBe('room_id_required');
    // A file link edited into a room link, and back.
    const file = (await createLink(t.server, p.appId, p.sales.token, { name: 'File', file_id: deck })).json().data as LinkData;
    const edited = await t.server.api.put(url(p.appId, `/link/${file.id}`), { type: 4, room_id: mine.id }, { token: p.sales.token });
    expect(edited.json().data).toMatchObject({ type: 4, roomId: mine.id, file1: null });
    const back = await t.server.api.put(url(p.appId, `/link/${file.id}`), { type: 1, file_id: deck }, { token: p.sales.token });
    expect(back.json().data).toMatchObject({ type: 1, roomId: null, file1: deck });
  });

  it('stop opening when their room is deleted: disabled, their views kept', async () => {
    const room = await made(p.sales.token, { name: 'Doomed', items: [{ type: 'file', file_id: deck }] });
    const link = (await createLink(t.server, p.appId, p.sales.token, { name: 'Doomed link', type: 4, room_id: room.id })).json()
      .data as LinkData;
    expect((await t.server.api.get(`/l/${link.shareToken}`)).statusCode).toBe(200);
    const gone = await t.server.api.delete(url(p.appId, `/room/${room.id}`), { token: p.admin.token });
    expect(gone.json()).toEqual({ status: 1, data: true });
    expect((await t.server.api.get(`/l/${link.shareToken}`)).statusCode).toBe(410);
    const listed = (await t.server.api.get(url(p.appId, '/links'), { token: p.sales.token, query: { count: 100 } })).json()
      .data as LinkData[];
    expect(listed.find((l) => l.id === link.id)).toMatchObject({ status: 0, roomId: room.id });
    expect((await t.server.api.get(url(p.appId, `/room/${room.id}`), { token: p.admin.token })).json().code).toBe('room_not_found');
  });
});
