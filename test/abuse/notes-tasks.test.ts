// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseProject, type AbuseUser, apiCall, readScalar, salesTeam, underAttack, useAbuseServer } from './harness.ts';

/**
 * Notes, tasks and logged calls under attack (docs/tasks.md): a Sales member reaching a colleague's
 * customer, another project's manager naming this project's ids, huge and hostile content, bad dates
 * and time zones, and a flood of the largest notes while another member works.
 */
const t = useAbuseServer();
let sales: AbuseUser;
let colleague: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;
let mine: string;
let theirs: string;
let theirNote: string;
let theirTask: string;

const json = { 'content-type': 'application/json' };
const call = (user: AbuseUser, method: string, path: string, body?: unknown) => apiCall(t.server, user, method, path, body);
const app = () => `/api/v1.7/app/${project.appId}`;
const count = async (table: 'notes' | 'tasks' | 'calls', appId = project.appId) =>
  Number(await readScalar(t.server, `select count(*) from ${table} where app_id = ?`, [appId]));

async function customerOf(user: AbuseUser, name: string): Promise<string> {
  const res = await call(user, 'POST', `${app()}/member/${user.id}/customers`, { name });
  if (res.body.status !== 1) throw new Error(JSON.stringify(res.body));
  return res.body.data?.id as string;
}

beforeAll(async () => {
  ({ sales, colleague, stranger, project, other } = await salesTeam(t.server, 'Notes'));
  mine = await customerOf(sales, 'Mine');
  theirs = await customerOf(colleague, 'Theirs');
  theirNote = (await call(colleague, 'POST', `${app()}/customer/${theirs}/notes`, { content: 'private' })).body.data?.id as string;
  const task = await call(colleague, 'POST', `${app()}/tasks`, { customer_id: theirs, title: 'private', due_at: '2030-01-01 10:00:00' });
  theirTask = task.body.data?.id as string;
});

describe('notes and tasks under attack', () => {
  it("a Sales member reaches nothing of a colleague's customer, by any route: not found, nothing written", async () => {
    const before = await Promise.all([count('notes'), count('tasks'), count('calls')]);
    const answers = [
      await call(sales, 'POST', `${app()}/customer/${theirs}/notes`, { content: 'x' }),
      await call(sales, 'GET', `${app()}/customer/${theirs}/notes`),
      await call(sales, 'PUT', `${app()}/customer/${theirs}/note/${theirNote}`, { content: 'x' }),
      await call(sales, 'DELETE', `${app()}/customer/${theirs}/note/${theirNote}`),
      // Their note through the Sales member's own customer's path.
      await call(sales, 'PUT', `${app()}/customer/${mine}/note/${theirNote}`, { content: 'x' }),
      await call(sales, 'DELETE', `${app()}/customer/${mine}/note/${theirNote}`),
      await call(sales, 'POST', `${app()}/customer/${theirs}/calls`, { note: 'x' }),
      await call(sales, 'POST', `${app()}/tasks`, { customer_id: theirs, title: 'x', due_at: '2030-01-01 10:00:00' }),
      await call(sales, 'PUT', `${app()}/task/${theirTask}`, { status: 'done', assignee_id: sales.id }),
      await call(sales, 'DELETE', `${app()}/task/${theirTask}`),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(['customer_not_found', 'note_not_found', 'task_not_found']).toContain(a.body.code);
    }
    const listed = await call(sales, 'GET', `${app()}/tasks?customer_id=${theirs}&assignee_id=${colleague.id}`);
    expect(listed.body).toMatchObject({ status: 1, data: [] });
    expect(await Promise.all([count('notes'), count('tasks'), count('calls')])).toEqual(before);
  });

  it("another project's Master gets the same answers as for ids that do not exist, by either project's path", async () => {
    const own = `/api/v1.7/app/${other.appId}`;
    const unknown = await call(stranger, 'GET', `${own}/customer/no-such-customer/notes`);
    for (const a of [
      await call(stranger, 'GET', `${own}/customer/${theirs}/notes`),
      await call(stranger, 'POST', `${own}/customer/${theirs}/notes`, { content: 'x' }),
      await call(stranger, 'POST', `${own}/customer/${theirs}/calls`, {}),
      await call(stranger, 'POST', `${own}/tasks`, { customer_id: theirs, title: 'x', due_at: '2030-01-01 10:00:00' }),
    ]) {
      expect(a.body).toEqual(unknown.body);
    }
    expect((await call(stranger, 'PUT', `${own}/task/${theirTask}`, { status: 'done' })).body).toEqual(
      (await call(stranger, 'PUT', `${own}/task/no-such-task`, { status: 'done' })).body,
    );
    expect((await call(stranger, 'DELETE', `${app()}/task/${theirTask}`)).status).toBe(403);
    expect((await call(stranger, 'GET', `${app()}/tasks`)).status).toBe(403);
    const task = await call(colleague, 'GET', `${app()}/tasks?customer_id=${theirs}`);
    expect(task.body).toMatchObject({ status: 1, data: [{ id: theirTask, status: 'open', title: 'private' }] });
  });

  it('refuses huge and hostile content in the documented shapes, never a 5xx', async () => {
    const before = await count('notes');
    const path = `${app()}/customer/${mine}/notes`;
    const huge = await fetch(`${t.server.base}${path}`, {
      method: 'POST',
      headers: { ...sales.auth, ...json },
      body: JSON.stringify({ content: 'x'.repeat(300 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect((await call(sales, 'POST', path, { content: 'x'.repeat(10_001) })).body).toMatchObject({ code: 'content_invalid' });
    const mentions = Array.from({ length: 600 }, (_, i) => `@[m](member:${i + 1})`).join('');
    expect((await call(sales, 'POST', path, { content: mentions })).body).toMatchObject({ code: 'content_invalid' });
    expect((await call(sales, 'POST', path, { content: 'nul \u0000 here' })).body).toMatchObject({ code: 'Bad Request' });
    expect((await call(sales, 'POST', path, { content: ['not', 'text'] })).body).toMatchObject({ status: 0 });
    expect((await call(sales, 'POST', path, '{"content":')).body).toMatchObject({ code: 'Bad Request' });
    expect(await count('notes')).toBe(before);
    // Markup is stored as text, to be rendered by whoever shows it.
    const xss = await call(sales, 'POST', path, { content: '<script>alert(1)</script> @[<img src=x>](member:1)' });
    expect(xss.body).toMatchObject({ status: 1 });
  });

  it('bad dates and time zones are refused with their codes, never a 5xx', async () => {
    const before = await count('tasks');
    for (const due of ['2026-13-01 10:00:00', '2026-02-29 10:00:00', '+275760-09-13T00:00:00Z', '9999-12-31 23:59:59', '0', 'NaN', ' ']) {
      const res = await call(sales, 'POST', `${app()}/tasks`, { customer_id: mine, title: 'x', due_at: due });
      expect(['due_at_invalid', 'due_at_required'], due).toContain(res.body.code);
    }
    for (const tz of ['Mars/Olympus', 'UTC+99', '../../etc/passwd', 'x'.repeat(64), 'Europe/Berlin\u0001']) {
      const res = await call(sales, 'GET', `${app()}/tasks?due=today&time_zone=${encodeURIComponent(tz)}`);
      expect(res.status).toBe(200);
      expect(['time_zone_invalid', 'Bad Request'], tz).toContain(res.body.code);
    }
    expect((await call(sales, 'GET', `${app()}/tasks?time_zone=${'x'.repeat(100)}`)).body).toMatchObject({ code: 'Bad Request' });
    for (const callTime of ['2999-01-01 00:00:00', '1970-01-01T00:00:00Z', 'yesterday']) {
      expect((await call(sales, 'POST', `${app()}/customer/${mine}/calls`, { call_time: callTime })).body).toMatchObject({
        code: 'call_time_invalid',
      });
    }
    expect(await count('tasks')).toBe(before);
  });

  it('a flood of the largest notes leaves the server up and another member answered within a second', async () => {
    const target = await customerOf(sales, 'Flooded');
    const content = `${'长'.repeat(9_000)} ${Array.from({ length: 50 }, (_, i) => `@[m](member:${i + 1})`).join(' ')}`;
    const { result, worstMs } = await underAttack(
      t.server,
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 60 }, () =>
            call(sales, 'POST', `${app()}/customer/${target}/notes`, { content }).then((r) => r.body.status),
          ),
        );
        return answers.filter((s) => s === 1).length;
      },
      () => fetch(`${t.server.base}${app()}/tasks?assignee_id=${colleague.id}`, { headers: colleague.auth }),
    );
    expect(t.server.alive()).toBe(true);
    expect(result).toBe(60);
    expect(worstMs).toBeLessThan(1000);
    const listed = await call(colleague, 'GET', `${app()}/customer/${theirs}/notes`);
    expect(listed.body).toMatchObject({ status: 1, data: [{ id: theirNote, content: 'private' }] });
  });
});
