// lanes: sqlite postgres
/**
 * The customer list's order, activity and total parameters as a weapon (docs/customers.md, "Order,
 * total and activity"): SQL in the order and filter values, numbers past what the databases hold,
 * overlong values, and an outsider or a Sales member fishing for counts. Every refusal is the
 * documented error with nothing leaked; the list still answers afterwards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

const list = (token: string, who: string, query: Record<string, string | number>) =>
  t.server.api.get(`/api/v1.7/app/${p.appId}/member/${who}/customers`, { token, query });

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'ab-1', owner: p.master.id },
    { id: 'ab-2', owner: p.sales.id },
    { id: 'ab-3', owner: p.sales2.id },
  ]);
});

describe('the customer list under attack', () => {
  it.each([
    [{ sort: 'name; drop table customers; --' }, 'sort_invalid'],
    [{ sort: 'updated_at' }, 'sort_invalid'],
    [{ order: 'desc, (select 1)' }, 'Bad Request'],
    [{ order: 'DESC' }, 'sort_invalid'],
    [{ activity: "' or 1=1 --" }, 'activity_invalid'],
    [{ activity: 'create' }, 'activity_invalid'],
    [{ period: '1e9d' }, 'period_invalid'],
    [{ period: '9999d' }, 'period_invalid'],
    [{ since: '99999999999999999999' }, 'Bad Request'],
    [{ until: '9007199254740993' }, 'Bad Request'],
    [{ since: '-1' }, 'Bad Request'],
    [{ since: '1.5' }, 'Bad Request'],
    [{ sort: 'x'.repeat(10_000) }, 'Bad Request'],
    [{ activity: 'x'.repeat(1_000) }, 'Bad Request'],
  ] as [Record<string, string>, string][])('%j: %s, no 5xx', async (query, code) => {
    const res = await list(p.master.token, 'all', query);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 0, code });
    expect(res.headers['x-total-count']).toBeUndefined();
  });

  it('the latest time a date holds is accepted, and finds nothing', async () => {
    const res = await list(p.master.token, 'all', { since: 8_640_000_000_000_000 - 1, activity: 'any' });
    expect(res.json()).toMatchObject({ status: 1, data: [] });
    expect(res.headers['x-total-count']).toBe('0');
  });

  it('an outsider learns no count; a Sales member counts only their own', async () => {
    const outsider = await list(p.outsider.token, 'all', {});
    expect(outsider.statusCode).toBe(403);
    expect(outsider.headers['x-total-count']).toBeUndefined();
    const sales = await list(p.sales.token, 'all', { period: '366d' });
    expect(sales.json()).toMatchObject({ status: 1 });
    expect((await list(p.sales.token, 'all', {})).headers['x-total-count']).toBe('1');
    const other = await list(p.sales.token, String(p.sales2.id), { sort: 'name' });
    expect(other.statusCode).toBe(403);
    expect(other.headers['x-total-count']).toBeUndefined();
  });

  it('still answers afterwards', async () => {
    const res = await list(p.master.token, 'all', { sort: 'name' });
    expect(res.json()).toMatchObject({ status: 1 });
    expect(res.headers['x-total-count']).toBe('3');
  });
});
