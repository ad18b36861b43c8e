// lanes: sqlite postgres main-thread-reads
/**
 * Customer list pages served from page anchors (ADR 0006) are exactly the pages a fresh walk would
 * give: in any order of requests, after edits through this server, and after writes by another
 * process (a second connection), for the whole project's list and for one owner's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../../src/db/index.ts';
import { TEST_DIALECT } from '../../helpers/database.ts';
import { type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

const t = useTestServer();
let master: TestUser;
let sales: TestUser;
let appId: string;

type Item = { id: string; name: string };

async function page(user: TestUser, who: string, start: number, count: number): Promise<string[]> {
  const res = await t.server.api.get(`/api/v1.7/app/${appId}/member/${who}/customers`, {
    token: user.token,
    query: { start_index: start, count },
  });
  const body = res.json() as { status: number; data: Item[] };
  expect(body.status).toBe(1);
  return body.data.map((c) => c.id);
}

/** The whole list in one walk: what every page must be a slice of. */
async function everything(user: TestUser, who: string): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const ids = await page(user, who, out.length, 100);
    out.push(...ids);
    if (ids.length < 100) return out;
  }
}

beforeAll(async () => {
  const client = await createClient(t.server);
  master = await activeUser(t.server, client);
  sales = await activeUser(t.server, client);
  const created = await t.server.api.post('/api/v1.7/apps', { name: 'Pages' }, { token: master.token });
  appId = (created.json() as { data: { appId: string } }).data.appId;
  await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: master.token });
  // 130 customers (two full pages of 100 and more), a third of them owned by the Sales member;
  // many share the same updatedAt millisecond, so the id tie-break matters.
  for (let i = 0; i < 130; i++) {
    const owner = i % 3 === 0 ? sales.id : master.id;
    const res = await t.server.api.post(
      `/api/v1.7/app/${appId}/member/${master.id}/customers`,
      { name: `C${i}`, svcUserId: owner },
      { token: master.token },
    );
    expect((res.json() as { status: number }).status).toBe(1);
  }
});

describe('customer list pages', () => {
  it('a sequential crawl, repeated pages and random start indexes all match one walk', async () => {
    const all = await everything(master, 'all');
    expect(all).toHaveLength(130);
    const crawled: string[] = [];
    for (let start = 0; start < 130; start += 20) crawled.push(...(await page(master, 'all', start, 20)));
    expect(crawled).toEqual(all);
    for (const start of [57, 3, 119, 40, 40, 0, 128, 130, 99, 61]) {
      expect(await page(master, 'all', start, 20)).toEqual(all.slice(start, start + 20));
    }
  });

  it("one owner's list is anchored apart from the project's", async () => {
    const mine = await everything(sales, String(sales.id));
    expect(mine).toHaveLength(44);
    for (const start of [0, 10, 20, 30, 40, 25, 5])
      expect(await page(sales, String(sales.id), start, 10)).toEqual(mine.slice(start, start + 10));
    const all = await everything(master, 'all');
    for (const start of [10, 30]) expect(await page(master, 'all', start, 10)).toEqual(all.slice(start, start + 10));
  });

  it('an edit moves a customer to the front and every page follows', async () => {
    const before = await everything(master, 'all');
    for (let start = 0; start < 130; start += 10) await page(master, 'all', start, 10); // anchors everywhere
    const moved = before[77] as string;
    const edit = await t.server.api.put(
      `/api/v1.7/app/${appId}/member/${master.id}/customer/${moved}`,
      { name: 'Moved' },
      { token: master.token },
    );
    expect((edit.json() as { status: number }).status).toBe(1);
    const after = [moved, ...before.filter((id) => id !== moved)];
    for (const start of [0, 50, 70, 78, 120]) expect(await page(master, 'all', start, 10)).toEqual(after.slice(start, start + 10));
  });

  it('a write by another process is followed too', async () => {
    const before = await everything(master, 'all');
    for (let start = 0; start < 130; start += 10) await page(master, 'all', start, 10);
    const other = createDatabase(t.server.ctx.config);
    const deleted = before[5] as string;
    try {
      await other.db.updateTable('customers').set({ status: 0 }).where('app_id', '=', appId).where('id', '=', deleted).execute();
    } finally {
      await other.close();
    }
    const after = before.filter((id) => id !== deleted);
    // Within a millisecond on SQLite, a NOTIFY's delay on PostgreSQL.
    const deadline = Date.now() + (TEST_DIALECT === 'sqlite' ? 100 : 3000);
    let got = await page(master, 'all', 60, 10);
    while (JSON.stringify(got) !== JSON.stringify(after.slice(60, 70)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      got = await page(master, 'all', 60, 10);
    }
    expect(got).toEqual(after.slice(60, 70));
    for (const start of [0, 4, 5, 100, 120]) expect(await page(master, 'all', start, 10)).toEqual(after.slice(start, start + 10));
  });
});
