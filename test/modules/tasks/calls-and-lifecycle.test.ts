// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, feedEvents, historyProject } from '../../helpers/histories.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import { type RunningRelay, startRelay } from '../../helpers/relay.ts';

/** Logging a call (with its note), and notes and tasks following their customer: merges, erasure, events delivered to webhooks. */
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let p: HistoryProject;

const HOUR = 3_600_000;
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const callsUrl = (customerId: string) => `/api/v1.7/app/${p.appId}/customer/${customerId}/calls`;
const db = () => t.server.ctx.database.db;

async function note(token: string, customerId: string, content: string) {
  const res = await t.server.api.post(`/api/v1.7/app/${p.appId}/customer/${customerId}/notes`, { content }, { token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as { id: string };
}

async function task(token: string, customerId: string, title: string) {
  const res = await t.server.api.post(
    `/api/v1.7/app/${p.appId}/tasks`,
    { customer_id: customerId, title, due_at: utc(Date.now() + HOUR) },
    { token },
  );
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as { id: string };
}

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'l-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'l-bob', owner: p.sales2.id, name: 'Bob' },
  ]);
});

describe('logging a call', () => {
  it("writes the interface's Call record, its call record in the timeline and the note, together", async () => {
    const start = Date.now() - 10 * 60_000;
    const res = await t.server.api.post(
      callsUrl('l-ada'),
      { call_time: utc(start), duration: 185, note: `Discussed the pilot, @[Boss](member:${p.admin.id}) to join next time` },
      { token: p.sales.token },
    );
    expect(res.json().status, res.body).toBe(1);
    const logged = res.json().data as {
      id: string;
      recordId: string;
      duration: number;
      callStatus: number;
      note: { callId: string; mentions: number[] };
    };
    expect(logged).toMatchObject({ duration: 185, callStatus: 1, callTime: utc(start), endTime: utc(start + 185_000) });
    expect(logged.note).toMatchObject({ callId: logged.id, mentions: [p.admin.id] });

    const calls = (await t.server.api.get('/api/v1.7/calls', { token: p.sales.token, query: { app_id: p.appId } })).json();
    const call = (calls.data as Record<string, unknown>[]).find((c) => c.id === logged.id);
    expect(call).toMatchObject({
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'l-ada',
      duration: 185,
      callStatus: 1,
    });

    const timeline = (await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/l-ada/behaviour`, { token: p.sales.token })).json()
      .data as { id: string; action: string; handleState?: string; duration?: number; note?: { id: string } }[];
    expect(timeline.find((r) => r.id === logged.recordId)).toMatchObject({ action: 'call', handleState: '1', duration: 185 });
    expect(timeline.filter((r) => r.action === 'member_note')).toHaveLength(1);
    const overview = (await t.server.api.get('/api/v1.7/customer/l-ada/overview', { token: p.sales.token })).json();
    expect(overview.data).toMatchObject({ callCount: 1, total: 1 });
  });

  it("an incoming call, no note; a colleague's customer, a future time and a bad direction write nothing", async () => {
    const incoming = await t.server.api.post(callsUrl('l-ada'), { direction: 'in', call_status: 0 }, { token: p.sales.token });
    expect(incoming.json()).toMatchObject({ status: 1, data: { note: null, callStatus: 0, duration: 0 } });
    const before = await db().selectFrom('calls').select('id').where('app_id', '=', p.appId).execute();
    const bad: [string, Record<string, unknown>, string][] = [
      ['l-bob', {}, 'customer_not_found'],
      ['nope', {}, 'customer_not_found'],
      ['l-ada', { call_time: utc(Date.now() + 2 * HOUR) }, 'call_time_invalid'],
      ['l-ada', { call_time: 'now' }, 'call_time_invalid'],
      ['l-ada', { direction: 'sideways' }, 'direction_invalid'],
      ['l-ada', { note: 'x'.repeat(10_001) }, 'content_invalid'],
      ['l-ada', { duration: -1 }, 'Bad Request'],
    ];
    for (const [customer, body, code] of bad) {
      expect((await t.server.api.post(callsUrl(customer), body, { token: p.sales.token })).json(), code).toMatchObject({ status: 0, code });
    }
    const after = await db().selectFrom('calls').select('id').where('app_id', '=', p.appId).execute();
    expect(after.length).toBe(before.length);
  });
});

describe('notes and tasks follow their customer', () => {
  it('move to the customer a merge kept', async () => {
    await addCustomers(t.server, p, [
      { id: 'm-keep', owner: p.sales.id },
      { id: 'm-gone', owner: p.sales.id },
    ]);
    const n = await note(p.sales.token, 'm-gone', 'on the merged one');
    const k = await task(p.sales.token, 'm-gone', 'on the merged one');
    const merged = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/member/${p.sales.id}/customer/merge`,
      { main_customer_id: 'm-keep', merge_user_ids: 'm-gone' },
      { token: p.sales.token, form: true },
    );
    expect(merged.json().status, merged.body).toBe(1);
    await t.server.services.merges.runPending(0);
    const notes = (await t.server.api.get(`/api/v1.7/app/${p.appId}/customer/m-keep/notes`, { token: p.sales.token })).json().data;
    expect(notes.map((x: { id: string }) => x.id)).toEqual([n.id]);
    const tasks = (
      await t.server.api.get(`/api/v1.7/app/${p.appId}/tasks`, { token: p.sales.token, query: { customer_id: 'm-keep' } })
    ).json().data;
    expect(tasks.map((x: { id: string }) => x.id)).toEqual([k.id]);
  });

  it('are erased with it, and the bodies of their events still in the outbox emptied', async () => {
    await addCustomers(t.server, p, [{ id: 'e-ada', owner: p.sales.id }]);
    const n = await note(p.sales.token, 'e-ada', 'private words about Ada');
    const k = await task(p.sales.token, 'e-ada', 'Call Ada about her divorce');
    const res = await t.server.api.post(`/api/v1.7/app/${p.appId}/customer/e-ada/erase`, undefined, { token: p.master.token });
    expect(res.json()).toMatchObject({ status: 1, data: { erased: { notes: 1, tasks: 1 } } });
    expect(await db().selectFrom('notes').select('id').where('app_id', '=', p.appId).where('id', '=', n.id).execute()).toEqual([]);
    expect(await db().selectFrom('tasks').select('id').where('app_id', '=', p.appId).where('id', '=', k.id).execute()).toEqual([]);
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainId === n.id || e.domainId === k.id);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(JSON.stringify(e.body ?? null)).not.toMatch(/private words|divorce/);
  });
});

describe('events out', () => {
  let relay: RunningRelay | null = null;
  afterAll(async () => {
    await relay?.stop();
  });

  it('delivers Note and Task events to a webhook that subscribed to them', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await t.server.api.post(
        `/api/v1.7/app/${p.appId}/webhooks`,
        { url: receiver.url, domain_types: 'Note,Task' },
        { token: p.master.token },
      );
      expect(hook.json()).toMatchObject({ status: 1, data: { domainTypes: ['Note', 'Task'] } });
      relay = startRelay(t.server.ctx, { pollMs: 10, retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 2000, leaseMs: 500 });
      const n = await note(p.sales.token, 'l-ada', 'delivered');
      const k = await task(p.sales.token, 'l-ada', 'delivered');
      await t.server.api.put(`/api/v1.7/app/${p.appId}/task/${k.id}`, { status: 'done' }, { token: p.sales.token });
      const seen = () => receiver.received.flatMap((r) => r.events);
      await receiver.until(() => seen().filter((e) => e.domainId === k.id).length >= 2);
      const mine = seen().filter((e) => e.domainId === n.id || e.domainId === k.id);
      expect(mine.map((e) => `${e.domainType}.${e.event_type}`)).toEqual(['Note.create', 'Task.create', 'Task.complete']);
      expect(seen().every((e) => e.domainType === 'Note' || e.domainType === 'Task')).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
