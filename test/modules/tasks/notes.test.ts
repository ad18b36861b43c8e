// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, feedEvents, historyProject } from '../../helpers/histories.ts';

/** Notes on customers through HTTP: who writes, reads, edits and deletes them, mentions, the timeline and the events. */
const t = useTestServer();
let p: HistoryProject;
let other: HistoryProject;

interface Note {
  id: string;
  customerId: string;
  authorId: number;
  content: string;
  mentions: number[];
  callId: string | null;
  createdAt: string;
  updatedAt: string;
}

const notesUrl = (customerId: string, app = p.appId) => `/api/v1.7/app/${app}/customer/${customerId}/notes`;
const noteUrl = (customerId: string, noteId: string) => `/api/v1.7/app/${p.appId}/customer/${customerId}/note/${noteId}`;
const mention = (id: number, label = 'someone') => `@[${label}](member:${id})`;

async function write(token: string, customerId: string, content: string) {
  return (await t.server.api.post(notesUrl(customerId), { content }, { token })).json() as { status: number; code?: string; data: Note };
}

async function timeline(token: string, customerId: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`, { token });
  return (res.json() as { data: { id: string; action: string; type: number; svcUserId: string; note?: Note | null }[] }).data;
}

beforeAll(async () => {
  p = await historyProject(t.server);
  other = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'n-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'n-bob', owner: p.sales2.id, name: 'Bob' },
    { id: 'n-cy', owner: p.sales.id, name: 'Cy' },
  ]);
  await addCustomers(t.server, other, [{ id: 'n-other', owner: other.master.id }]);
});

describe('notes', () => {
  it('a Sales member writes a note on their customer; mentions resolve to members who may see it, the rest stay text', async () => {
    const content = `Call back about **pricing**, ${mention(p.admin.id, 'Boss')} ${mention(p.sales2.id)} ${mention(p.outsider.id)} ${mention(999_999)}`;
    const res = await write(p.sales.token, 'n-ada', content);
    expect(res.status, JSON.stringify(res)).toBe(1);
    expect(res.data).toMatchObject({ customerId: 'n-ada', authorId: p.sales.id, content, mentions: [p.admin.id], callId: null });
    expect(res.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // The owner's mention resolves (an Admin writes about a Sales member's customer).
    const byAdmin = await write(p.admin.token, 'n-ada', `${mention(p.sales.id)} please follow up`);
    expect(byAdmin.data.mentions).toEqual([p.sales.id]);
  });

  it('lists the notes newest first, paged with start_index and count', async () => {
    for (const n of [1, 2, 3]) expect((await write(p.sales.token, 'n-cy', `note ${n}`)).status).toBe(1);
    const all = (await t.server.api.get(notesUrl('n-cy'), { token: p.sales.token })).json().data as Note[];
    expect(all.map((n) => n.content)).toEqual(['note 3', 'note 2', 'note 1']);
    const page = (await t.server.api.get(notesUrl('n-cy'), { token: p.master.token, query: { start_index: 1, count: 1 } })).json();
    expect(page.data.map((n: Note) => n.content)).toEqual(['note 2']);
    const bad = (await t.server.api.get(notesUrl('n-cy'), { token: p.sales.token, query: { count: -1 } })).json();
    expect(bad).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it("answers a colleague's, another project's and an unknown customer alike: customer_not_found, nothing written", async () => {
    const before = await t.server.ctx.database.db.selectFrom('notes').select('id').where('app_id', '=', p.appId).execute();
    for (const id of ['n-bob', 'n-other', 'no-such']) {
      expect(await write(p.sales.token, id, 'hello')).toMatchObject({ status: 0, code: 'customer_not_found' });
      expect((await t.server.api.get(notesUrl(id), { token: p.sales.token })).json()).toMatchObject({
        status: 0,
        code: 'customer_not_found',
      });
    }
    // The other project's Master, naming its own customer under this project's path: not a member here.
    expect((await t.server.api.post(notesUrl('n-other'), { content: 'x' }, { token: other.master.token })).statusCode).toBe(403);
    const after = await t.server.ctx.database.db.selectFrom('notes').select('id').where('app_id', '=', p.appId).execute();
    expect(after.length).toBe(before.length);
  });

  it('checks the content: required, at most 10,000 characters (CJK counted as one each), at most 50 mentions', async () => {
    expect(await write(p.sales.token, 'n-ada', '   ')).toMatchObject({ status: 0, code: 'content_required' });
    expect((await t.server.api.post(notesUrl('n-ada'), {}, { token: p.sales.token })).json()).toMatchObject({ code: 'content_required' });
    expect(await write(p.sales.token, 'n-ada', 'x'.repeat(10_001))).toMatchObject({ status: 0, code: 'content_invalid' });
    expect((await write(p.sales.token, 'n-ada', '客'.repeat(10_000))).status).toBe(1);
    const many = Array.from({ length: 51 }, (_, i) => mention(i + 1)).join(' ');
    expect(await write(p.sales.token, 'n-ada', many)).toMatchObject({ status: 0, code: 'content_invalid' });
  });

  it('the author edits; others may not; new mentions are the event’s newMentions', async () => {
    const n = (await write(p.sales.token, 'n-ada', `first ${mention(p.admin.id)}`)).data;
    const edited = await t.server.api.put(
      noteUrl('n-ada', n.id),
      { content: `second ${mention(p.admin.id)} ${mention(p.master.id)}` },
      { token: p.sales.token },
    );
    expect(edited.json()).toMatchObject({ status: 1, data: { id: n.id, mentions: [p.admin.id, p.master.id] } });
    const byMaster = await t.server.api.put(noteUrl('n-ada', n.id), { content: 'mine now' }, { token: p.master.token });
    expect(byMaster.json()).toMatchObject({ status: 0, code: 'note_not_yours' });
    // Through another customer's path the note is not there.
    expect((await t.server.api.put(noteUrl('n-cy', n.id), { content: 'x' }, { token: p.sales.token })).json()).toMatchObject({
      code: 'note_not_found',
    });
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainType === 'Note' && e.domainId === n.id);
    expect(events.map((e) => e.event_type)).toEqual(['create', 'update']);
    expect(events[0]?.body).toMatchObject({ newMentions: [p.admin.id], svcUserId: String(p.sales.id), customerId: 'n-ada' });
    expect(events[1]?.body).toMatchObject({ newMentions: [p.master.id], mentions: [p.admin.id, p.master.id] });
  });

  it('the author, the Master and Admins delete; a Sales member not the author may not', async () => {
    const byMaster = (await write(p.master.token, 'n-ada', 'from the Master')).data;
    expect((await t.server.api.delete(noteUrl('n-ada', byMaster.id), { token: p.sales.token })).json()).toMatchObject({
      code: 'note_not_yours',
    });
    expect((await t.server.api.delete(noteUrl('n-ada', byMaster.id), { token: p.sales2.token })).json()).toMatchObject({
      code: 'customer_not_found',
    });
    const own = (await write(p.sales.token, 'n-ada', 'mine')).data;
    expect((await t.server.api.delete(noteUrl('n-ada', own.id), { token: p.admin.token })).json()).toEqual({ status: 1, data: true });
    expect((await t.server.api.delete(noteUrl('n-ada', own.id), { token: p.admin.token })).json()).toMatchObject({
      code: 'note_not_found',
    });
    expect((await t.server.api.delete(noteUrl('n-ada', byMaster.id), { token: p.master.token })).json()).toMatchObject({ status: 1 });
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainId === own.id);
    expect(events.map((e) => `${e.domainType}.${e.event_type}`)).toEqual(['Note.create', 'BehaviourLog.create', 'Note.delete']);
  });

  it("puts each note in the customer's timeline (member_note, joined to the note as it is now), out of its counters", async () => {
    await addCustomers(t.server, p, [{ id: 'n-tl', owner: p.sales.id }]);
    const n = (await write(p.sales.token, 'n-tl', 'timeline note')).data;
    await t.server.api.put(noteUrl('n-tl', n.id), { content: 'timeline note, edited' }, { token: p.sales.token });
    const [record] = await timeline(p.sales.token, 'n-tl');
    expect(record).toMatchObject({ id: n.id, action: 'member_note', type: 1, svcUserId: String(p.sales.id) });
    expect(record?.note).toMatchObject({ id: n.id, content: 'timeline note, edited' });
    const overview = (await t.server.api.get('/api/v1.7/customer/n-tl/overview', { token: p.sales.token })).json();
    expect(overview.data.total).toBe(0);
    const list = (await t.server.api.get(`/api/v1.7/app/${p.appId}/member/${p.sales.id}/customers`, { token: p.sales.token })).json();
    expect(list.data.find((c: { id: string }) => c.id === 'n-tl')).toMatchObject({ newCount: 0 });
    await t.server.api.delete(noteUrl('n-tl', n.id), { token: p.sales.token });
    expect(await timeline(p.sales.token, 'n-tl')).toEqual([]);
  });

  it('refuses the team actions at ingestion: only Rapport writes them', async () => {
    const res = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/events`,
      [
        {
          event_type: 'create',
          domainType: 'BehaviourLog',
          domainId: 'forged-note',
          body: { customerId: 'n-ada', action: 'member_note', when: '2026-01-01 10:00:00', content: '{"note_id":"x"}' },
        },
      ],
      { headers: { 'x-app-secret': p.secret } },
    );
    expect(res.json()).toMatchObject({ status: 0, code: 'invalid_events' });
  });

  it('a removed member is no longer mentioned', async () => {
    const client = await createClient(t.server);
    const gone = await activeUser(t.server, client);
    await t.server.api.post(`/api/v1.7/app/${p.appId}/members`, { svc_user_id: gone.id, role: 'Admin' }, { token: p.master.token });
    await t.server.api.post(`/api/v1.7/app/${p.appId}/member/${gone.id}`, {}, { token: p.master.token });
    expect((await write(p.sales.token, 'n-ada', mention(gone.id))).data.mentions).toEqual([]);
  });
});
