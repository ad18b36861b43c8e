// lanes: sqlite postgres
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, feedEvents, historyProject } from '../../helpers/histories.ts';

/** Tasks through HTTP: who makes, sees and changes them, the list's filters and time zones, the due scan. */
const t = useTestServer();
let p: HistoryProject;

interface Task {
  id: string;
  customerId: string;
  customerName: string | null;
  title: string;
  notes: string | null;
  kind: string;
  dueAt: string;
  assigneeId: number;
  creatorId: number;
  status: string;
  overdue: boolean;
  completedAt: string | null;
  completedBy: number | null;
}

const HOUR = 3_600_000;
const tasksUrl = () => `/api/v1.7/app/${p.appId}/tasks`;
const taskUrl = (id: string) => `/api/v1.7/app/${p.appId}/task/${id}`;
/** `yyyy-MM-dd HH:mm:ss` in UTC (the test server's TIME_ZONE). */
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function create(token: string, body: Record<string, unknown>) {
  return (await t.server.api.post(tasksUrl(), body, { token })).json() as { status: number; code?: string; msg?: string; data: Task };
}

async function list(token: string, query: Record<string, string | number> = {}) {
  const res = (await t.server.api.get(tasksUrl(), { token, query })).json() as { status: number; code?: string; data: Task[] };
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data;
}

const titles = (tasks: Task[]) => tasks.map((x) => x.title).sort();

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 't-ada', owner: p.sales.id, name: 'Ada' },
    { id: 't-bob', owner: p.sales2.id, name: 'Bob' },
  ]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('tasks', () => {
  it('a Sales member makes a task on their customer, for themselves by default', async () => {
    const due = Date.now() + 2 * HOUR;
    const res = await create(p.sales.token, { customer_id: 't-ada', title: '  Send the quote ', due_at: utc(due) });
    expect(res.status, JSON.stringify(res)).toBe(1);
    expect(res.data).toMatchObject({
      customerId: 't-ada',
      customerName: 'Ada',
      title: 'Send the quote',
      kind: 'todo',
      assigneeId: p.sales.id,
      creatorId: p.sales.id,
      status: 'open',
      overdue: false,
      completedAt: null,
      dueAt: utc(due),
    });
    // ISO 8601 with an offset, a kind and notes; assigned to the Admin (who sees every customer).
    const iso = await create(p.sales.token, {
      customer_id: 't-ada',
      title: 'Call',
      due_at: '2030-05-01T09:30:00+08:00',
      kind: 'CALL',
      notes: 'ask for the budget',
      assignee_id: p.admin.id,
    });
    expect(iso.data).toMatchObject({ kind: 'call', dueAt: '2030-05-01 01:30:00', assigneeId: p.admin.id, notes: 'ask for the budget' });
  });

  it('refuses bad input with its code, writing nothing', async () => {
    const base = { customer_id: 't-ada', title: 'x', due_at: utc(Date.now() + HOUR) };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, title: ' ' }, 'title_required'],
      [{ ...base, title: 'x'.repeat(201) }, 'title_invalid'],
      [{ ...base, due_at: undefined }, 'due_at_required'],
      [{ ...base, due_at: '2026-02-30 10:00:00' }, 'due_at_invalid'],
      [{ ...base, due_at: 'tomorrow' }, 'due_at_invalid'],
      [{ ...base, due_at: '1999-12-31 23:59:59' }, 'due_at_invalid'],
      [{ ...base, due_at: '2100-01-01T00:00:00Z' }, 'due_at_invalid'],
      [{ ...base, kind: 'meeting' }, 'task_kind_invalid'],
      [{ ...base, notes: 'n'.repeat(4001) }, 'notes_invalid'],
      // A member who may not see the customer, a non-member, nobody.
      [{ ...base, assignee_id: p.sales2.id }, 'assignee_id_invalid'],
      [{ ...base, assignee_id: p.outsider.id }, 'assignee_id_invalid'],
      [{ ...base, assignee_id: 987_654 }, 'assignee_id_invalid'],
      [{ ...base, customer_id: 't-bob' }, 'customer_not_found'],
      [{ ...base, customer_id: 'nope' }, 'customer_not_found'],
      [{ ...base, customer_id: undefined }, 'Bad Request'],
      [{ ...base, assignee_id: 'abc' }, 'Bad Request'],
    ];
    const before = await t.server.ctx.database.db.selectFrom('tasks').select('id').where('app_id', '=', p.appId).execute();
    for (const [body, code] of cases) expect(await create(p.sales.token, body), JSON.stringify(body)).toMatchObject({ status: 0, code });
    const after = await t.server.ctx.database.db.selectFrom('tasks').select('id').where('app_id', '=', p.appId).execute();
    expect(after.length).toBe(before.length);
  });

  it("lists only the tasks of the customers the caller's list shows, with assignee and status filters", async () => {
    const due = utc(Date.now() + 3 * HOUR);
    await create(p.master.token, { customer_id: 't-bob', title: 'Bob task', due_at: due, assignee_id: p.sales2.id });
    await create(p.master.token, { customer_id: 't-ada', title: 'Ada task for the Master', due_at: due });
    const sales = await list(p.sales.token);
    expect(sales.every((x) => x.customerId === 't-ada')).toBe(true);
    expect(titles(sales)).toContain('Ada task for the Master');
    expect(titles(await list(p.sales2.token))).toEqual(['Bob task']);
    expect(titles(await list(p.master.token, { assignee_id: p.sales2.id }))).toEqual(['Bob task']);
    expect(await list(p.sales.token, { assignee_id: p.sales2.id })).toEqual([]);
    expect((await list(p.master.token, { status: 'done' })).length).toBe(0);
    expect((await list(p.master.token, { customer_id: 't-bob' })).map((x) => x.title)).toEqual(['Bob task']);
    // Soonest first.
    const dues = (await list(p.master.token, { status: 'open' })).map((x) => x.dueAt);
    expect(dues).toEqual([...dues].sort());
    const bad = (await t.server.api.get(tasksUrl(), { token: p.master.token, query: { status: 'late' } })).json();
    expect(bad).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it('due today, overdue and this week are days of time_zone (default the server TIME_ZONE)', async () => {
    await addCustomers(t.server, p, [{ id: 't-tz', owner: p.sales.id }]);
    // A fixed "now": tomorrow 20:00 UTC, which is the day after's 04:00 in Shanghai.
    const day = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR + 24 * HOUR;
    const now = day + 20 * HOUR;
    const make = async (title: string, at: number) =>
      expect((await create(p.sales.token, { customer_id: 't-tz', title, due_at: utc(at) })).status).toBe(1);
    await make('late', now - HOUR);
    await make('tonight', now + HOUR);
    await make('early tomorrow', now + 6 * HOUR);
    await make('in five days', now + 5 * 24 * HOUR);
    await make('in ten days', now + 10 * 24 * HOUR);
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(now);
    const q = (extra: Record<string, string>) => list(p.sales.token, { customer_id: 't-tz', ...extra });
    expect(titles(await q({ due: 'today' }))).toEqual(['late', 'tonight']);
    expect(titles(await q({ due: 'today', time_zone: 'Asia/Shanghai' }))).toEqual(['early tomorrow', 'late', 'tonight']);
    // In Dubai (UTC+4) "now" is midnight: the late one was yesterday's.
    expect(titles(await q({ due: 'today', time_zone: 'Asia/Dubai' }))).toEqual(['early tomorrow', 'tonight']);
    expect(titles(await q({ due: 'overdue' }))).toEqual(['late']);
    expect((await q({ due: 'overdue' }))[0]?.overdue).toBe(true);
    expect(titles(await q({ due: 'week' }))).toEqual(['early tomorrow', 'in five days', 'late', 'tonight']);
    const bad = (await t.server.api.get(tasksUrl(), { token: p.sales.token, query: { due: 'today', time_zone: 'Mars/Olympus' } })).json();
    expect(bad).toMatchObject({ status: 0, code: 'time_zone_invalid' });
    expect((await t.server.api.get(tasksUrl(), { token: p.sales.token, query: { due: 'yesterday' } })).json()).toMatchObject({
      code: 'Bad Request',
    });
  });

  it('marks done, reopens, reschedules, reassigns and edits; each change is an event', async () => {
    const task = (await create(p.sales.token, { customer_id: 't-ada', title: 'Follow up', due_at: utc(Date.now() + HOUR) })).data;
    const put = async (token: string, body: Record<string, unknown>) =>
      (await t.server.api.put(taskUrl(task.id), body, { token })).json() as { status: number; code?: string; data: Task };
    const done = await put(p.sales.token, { status: 'done' });
    expect(done.data).toMatchObject({ status: 'done', completedBy: p.sales.id, overdue: false });
    expect(done.data.completedAt).not.toBeNull();
    expect((await put(p.sales.token, { status: 'open' })).data).toMatchObject({ status: 'open', completedAt: null, completedBy: null });
    const later = utc(Date.now() + 48 * HOUR);
    const edited = await put(p.sales.token, {
      due_at: later,
      assignee_id: p.master.id,
      title: 'Follow up again',
      notes: 'n',
      kind: 'email',
    });
    expect(edited.data).toMatchObject({ dueAt: later, assigneeId: p.master.id, title: 'Follow up again', notes: 'n', kind: 'email' });
    expect((await put(p.sales.token, { notes: '' })).data.notes).toBeNull();
    expect(await put(p.sales.token, { status: 'finished' })).toMatchObject({ code: 'task_status_invalid' });
    expect(await put(p.sales.token, { assignee_id: p.sales2.id })).toMatchObject({ code: 'assignee_id_invalid' });
    expect(await put(p.sales2.token, { status: 'done' })).toMatchObject({ code: 'task_not_found' });
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainId === task.id);
    expect(events.map((e) => `${e.domainType}.${e.event_type}`)).toEqual([
      'Task.create',
      'BehaviourLog.create',
      'Task.complete',
      'Task.update',
      'Task.update',
      'Task.update',
    ]);
    expect(events[2]?.body).toMatchObject({ id: task.id, status: 'done', svcUserId: String(p.sales.id), customerId: 't-ada' });
  });

  it("deletes a task with its timeline record; others' and unknown ids answer task_not_found", async () => {
    const task = (await create(p.sales.token, { customer_id: 't-ada', title: 'Bye', due_at: utc(Date.now() + HOUR) })).data;
    const timeline = async () =>
      (
        (
          await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/t-ada/behaviour`, {
            token: p.sales.token,
            query: { count: 100 },
          })
        ).json().data as { id: string; action: string; task?: Task | null }[]
      ).filter((r) => r.id === task.id);
    expect(await timeline()).toMatchObject([{ action: 'member_task', task: { id: task.id, title: 'Bye', status: 'open' } }]);
    expect((await t.server.api.delete(taskUrl(task.id), { token: p.sales2.token })).json()).toMatchObject({ code: 'task_not_found' });
    expect((await t.server.api.delete(taskUrl(task.id), { token: p.sales.token })).json()).toEqual({ status: 1, data: true });
    expect((await t.server.api.delete(taskUrl(task.id), { token: p.sales.token })).json()).toMatchObject({ code: 'task_not_found' });
    expect(await timeline()).toEqual([]);
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainId === task.id && e.domainType === 'Task');
    expect(events.at(-1)).toMatchObject({ event_type: 'delete', body: { id: task.id, customerId: 't-ada' } });
  });

  it('announces a task come due once per due time (the due scan), not a done one, again after a reschedule', async () => {
    await addCustomers(t.server, p, [{ id: 't-due', owner: p.sales.id }]);
    const soon = Date.now() + HOUR;
    const task = (await create(p.sales.token, { customer_id: 't-due', title: 'Due soon', due_at: utc(soon) })).data;
    const done = (await create(p.sales.token, { customer_id: 't-due', title: 'Done early', due_at: utc(soon) })).data;
    await t.server.api.put(taskUrl(done.id), { status: 'done' }, { token: p.sales.token });
    const dueEvents = async () =>
      (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainType === 'Task' && e.event_type === 'due');
    await t.server.services.tasks.due.scan();
    expect((await dueEvents()).filter((e) => e.domainId === task.id)).toEqual([]);

    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(soon + 1000);
    await t.server.services.tasks.due.scan();
    await t.server.services.tasks.due.scan();
    const first = (await dueEvents()).filter((e) => e.domainId === task.id || e.domainId === done.id);
    expect(first.map((e) => e.domainId)).toEqual([task.id]);
    expect(first[0]?.body).toMatchObject({ id: task.id, assigneeId: p.sales.id, overdue: true, svcUserId: String(p.sales.id) });

    const later = soon + 24 * HOUR;
    vi.restoreAllMocks();
    await t.server.api.put(taskUrl(task.id), { due_at: utc(later) }, { token: p.sales.token });
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(later + 1000);
    await t.server.services.tasks.due.scan();
    expect((await dueEvents()).filter((e) => e.domainId === task.id).length).toBe(2);
  });
});
