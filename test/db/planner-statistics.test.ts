// lanes: postgres
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../helpers/database.ts';
import { useTestServer } from '../helpers/harness.ts';
import { DAY, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../helpers/histories.ts';

const record = (id: string, customerId: string) =>
  event('BehaviourLog', id, {
    customerId,
    action: 'access_site',
    when: ago(DAY),
    content: JSON.stringify({ web_access_log_id: `w-${id}`, title: 'Pricing', site: 'example.com' }),
  });

interface TableStats {
  last_analyze: Date | null;
  last_autoanalyze: Date | null;
  reltuples: number;
}

// PostgreSQL plans from table statistics; on SQLite there are none to keep (its planner reads the
// indexes as they are), so this file runs on PostgreSQL only.
describe.skipIf(TEST_DIALECT !== 'postgres')('planner statistics after a bulk load (PostgreSQL)', () => {
  const TOKEN = 'metrics-token-for-tests-0123456789';
  const t = useTestServer({ METRICS_TOKEN: TOKEN });
  let p: HistoryProject;

  const stats = async (table: string): Promise<TableStats> => {
    const r = await sql<TableStats>`
      select s.last_analyze, s.last_autoanalyze, greatest(c.reltuples, 0)::float8 as reltuples
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = ${table}`.execute(t.server.ctx.database.db);
    return r.rows[0] as TableStats;
  };

  beforeAll(async () => {
    p = await historyProject(t.server);
    await addCustomers(t.server, p, [{ id: 'stats-a', owner: p.master.id }]);
    // Autovacuum off for the table, so only the write path can have gathered its statistics.
    await sql`alter table behaviour_logs set (autovacuum_enabled = false)`.execute(t.server.ctx.database.db);
  });

  it('gathers statistics for a table as soon as a load has written enough rows to it, without waiting for autovacuum', async () => {
    const before = await stats('behaviour_logs');
    expect(before.last_analyze).toBeNull();
    for (let b = 0; b < 3; b += 1) {
      const batch = Array.from({ length: 1000 }, (_, i) => record(`load-${b}-${i}`, 'stats-a'));
      expect((await ingest(t.server, p, batch)).json()).toEqual({ status: 1, data: { accepted: 1000, duplicates: 0 } });
    }
    // ANALYZE runs off the request path: wait (bounded) for its outcome to be visible.
    let after = await stats('behaviour_logs');
    for (let i = 0; i < 100 && (after.last_analyze === null || after.reltuples < 2000); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      after = await stats('behaviour_logs');
    }
    expect(after.last_analyze).not.toBeNull();
    expect(after.last_autoanalyze).toBeNull();
    // The planner now sees the table at about its size (the last batch may still be on its way in).
    expect(after.reltuples).toBeGreaterThanOrEqual(2000);
    expect(after.reltuples).toBeLessThanOrEqual(3000);
    const metrics = await t.server.api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.body).toMatch(/rapport_planner_statistics_total\{table="behaviour_logs",outcome="ok"\} [1-9]/);
  });

  it('does not gather them for a few rows', async () => {
    await addCustomers(t.server, p, [{ id: 'stats-b', owner: p.master.id }]);
    const after = await stats('customers');
    // Two customers are far below the first threshold: nothing was analyzed for them.
    expect(after.last_analyze).toBeNull();
  });
});
