// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';
import { DAY, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [{ id: 'text-cust', owner: p.sales.id }]);
});

describe('text a database cannot store as given', () => {
  it('ingests a lone surrogate as U+FFFD, on every database alike', async () => {
    const res = await ingest(t.server, p, [
      event('BehaviourLog', 'text-lone', {
        customerId: 'text-cust',
        action: 'send_message',
        when: ago(DAY),
        description: 'a\ud800b',
      }),
    ]);
    expect(res.json()).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    const row = await t.server.ctx.database.db
      .selectFrom('behaviour_logs')
      .select('description')
      .where('app_id', '=', p.appId)
      .where('id', '=', 'text-lone')
      .executeTakeFirstOrThrow();
    expect(row.description).toBe('a\ufffdb');
  });

  it('refuses a NUL character with a clear error and stores nothing', async () => {
    const res = await ingest(t.server, p, [
      event('BehaviourLog', 'text-nul-ok', { customerId: 'text-cust', action: 'send_message', when: ago(DAY) }),
      event('BehaviourLog', 'text-nul', { customerId: 'text-cust', action: 'send_message', when: ago(DAY), description: 'a\u0000b' }),
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 0,
      code: 'Bad Request',
      msg: 'Text may not contain the NUL character (U+0000): [1].body.description',
    });
    const rows = await t.server.ctx.database.db
      .selectFrom('behaviour_logs')
      .select('id')
      .where('app_id', '=', p.appId)
      .where('id', 'in', ['text-nul', 'text-nul-ok'])
      .execute();
    expect(rows).toEqual([]);
  });

  const createCustomer = (body: Record<string, unknown>, form: boolean) =>
    t.server.api.post(`/api/v1.7/app/${p.appId}/member/${p.sales.id}/customers`, body, { token: p.sales.token, form });

  it('refuses a NUL in a form field, a JSON field, a query value and a path segment', async () => {
    const nul = { code: 'Bad Request', msg: expect.stringContaining('U+0000') };
    expect((await createCustomer({ name: 'a\u0000b' }, true)).json()).toMatchObject({ status: 0, ...nul });
    expect((await createCustomer({ name: 'a\u0000b' }, false)).json()).toMatchObject({ status: 0, ...nul });
    const search = await t.server.api.get(`/api/v1.7/app/${p.appId}/customer/appSearch`, {
      token: p.master.token,
      query: { condition: 'x\u0000' },
    });
    expect(search.json()).toMatchObject({ status: 0, msg: 'Text may not contain the NUL character (U+0000): condition' });
    const detail = await t.server.api.get('/api/v1.7/customer/text%00cust', { token: p.master.token });
    expect(detail.json()).toMatchObject({ status: 0, ...nul });
    const names = await t.server.ctx.database.db.selectFrom('customers').select('name').where('app_id', '=', p.appId).execute();
    expect(names.map((n) => n.name)).not.toContain('a\u0000b');
  });

  it('keeps text that only looks like an escape, and stores a lone surrogate in a form the same way', async () => {
    const literal = await createCustomer({ name: 'back\\u0000slash' }, false);
    expect(literal.json().status, literal.body).toBe(1);
    expect(literal.json().data.name).toBe('back\\u0000slash');
    const lone = await createCustomer({ name: 'x\udc00y' }, true);
    expect(lone.json().status, lone.body).toBe(1);
    expect(lone.json().data.name).toBe('x\ufffdy');
  });

  it('walks a deeply nested body without overflowing', async () => {
    const deep = `${'['.repeat(100_000)}"end\\ud800"${']'.repeat(100_000)}`;
    const res = await t.server.api.post(`/api/v1.7/app/${p.appId}/events`, deep, { headers: { 'x-app-secret': p.secret } });
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json()).toMatchObject({ status: 0 });
  });

  it('answers a NUL on the token endpoint in its OAuth shape', async () => {
    const client = await createClient(t.server);
    const res = await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'password', username: '1390000\u00000000', password: 'x' },
      { form: true, headers: { authorization: client.basic } },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Text may not contain the NUL character (U+0000): username',
    });
  });
});
