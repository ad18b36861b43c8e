// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DIALECT } from '../../helpers/database.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

/**
 * The site page's check (docs/site-tracking.md, "Checking the installation"): when the project's
 * snippet last sent an event and from which host, for the project's Master and Admins only.
 */
const t = useTestServer();
let p: HistoryProject;
let other: HistoryProject;
const ORIGIN = 'https://shop.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const newId = () => randomBytes(16).toString('base64url');

const lastEvent = (project: HistoryProject, token: string) => t.server.api.get(`/api/v1.7/app/${project.appId}/site/last-event`, { token });

async function siteKeyOf(project: HistoryProject): Promise<string> {
  await t.server.api.post(`/api/v1.7/app/${project.appId}`, { site_origins: ORIGIN }, { token: project.master.token });
  return (await t.server.api.get(`/api/v1.7/app/${project.appId}/site`, { token: project.master.token })).json().data.siteKey;
}

const collect = (key: string, body: unknown) =>
  t.server.api.post(`/t/collect?k=${encodeURIComponent(key)}`, JSON.stringify(body), {
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
  });

beforeAll(async () => {
  p = await historyProject(t.server);
  other = await historyProject(t.server);
});

describe('GET /app/{app-id}/site/last-event', () => {
  it('answers null before any event, then the latest visit’s time and host', async () => {
    expect((await lastEvent(p, p.master.token)).json()).toEqual({ status: 1, data: { receivedAt: null, site: null } });
    const key = await siteKeyOf(p);
    const first = Date.now() - 60_000;
    const sent = await collect(key, {
      v: newId(),
      s: newId(),
      e: [{ t: 'visit', at: first, url: `${ORIGIN}/pricing?x=1`, title: 'Pricing', ref: '', kw: '' }],
    });
    expect(sent.json()).toEqual({ status: 1, data: {} });
    expect((await lastEvent(p, p.master.token)).json().data).toEqual({
      receivedAt: new Date(first).toISOString(),
      site: 'shop.example.com',
    });

    // A later event of another visit is the one shown; an earlier one does not move it back.
    const later = Date.now() - 10_000;
    await collect(key, { v: newId(), s: newId(), e: [{ t: 'visit', at: later, url: `${ORIGIN}/`, title: 'Home', ref: '', kw: '' }] });
    await collect(key, {
      v: newId(),
      s: newId(),
      e: [{ t: 'visit', at: first - 5000, url: `${ORIGIN}/old`, title: 'Old', ref: '', kw: '' }],
    });
    const res = (await lastEvent(p, p.admin.token)).json();
    expect(res).toEqual({ status: 1, data: { receivedAt: new Date(later).toISOString(), site: 'shop.example.com' } });
    // The other project has still received nothing.
    expect((await lastEvent(other, other.master.token)).json().data).toEqual({ receivedAt: null, site: null });
  });

  it('is for the Master and Admins: Sales and outsiders are refused, an unknown project too', async () => {
    expect((await lastEvent(p, p.sales.token)).statusCode).toBe(403);
    expect((await lastEvent(p, p.outsider.token)).statusCode).toBe(403);
    expect((await lastEvent(p, '')).statusCode).toBe(403);
    expect((await lastEvent(other, p.master.token)).statusCode).toBe(403);
    const unknown = await t.server.api.get('/api/v1.7/app/no-such-project/site/last-event', { token: p.master.token });
    expect(unknown.json()).toMatchObject({ status: 0 });
    expect(unknown.statusCode).toBeLessThan(500);
  });

  it('reads the latest visit through the index, not a scan of the project’s visits', async () => {
    const db = t.server.ctx.database.db;
    // The project's id is ours (a UUID): written into the statement, as EXPLAIN takes no parameters.
    const query = sql.raw(`select last_at, site from site_visits where app_id = '${p.appId}' order by last_at desc limit 1`);
    let plan: unknown[];
    if (TEST_DIALECT === 'postgres') {
      plan = await db.transaction().execute(async (trx) => {
        // A test's few rows make a scan cheapest; the planner must still be able to take the index.
        await sql`set local enable_seqscan = off`.execute(trx);
        return (await sql`explain ${query}`.execute(trx)).rows;
      });
    } else {
      plan = (await sql`explain query plan ${query}`.execute(db)).rows;
    }
    expect(JSON.stringify(plan)).toContain('site_visits_latest_idx');
  });
});
