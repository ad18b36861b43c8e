// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/harness.ts';
import { type HistoryProject, ago, customerEvent, event, historyProject, ingest } from '../helpers/histories.ts';

/**
 * The hot reads of the bench cost one statement each once the caches are warm: on
 * PostgreSQL every statement is a round trip that costs more server CPU than the rest of the
 * request. A second statement creeping back into one of them (an N+1, a separate existence check)
 * fails here, on both databases, without timing anything.
 */
const t = useTestServer();
let p: HistoryProject;
let statements: string[] = [];

beforeAll(async () => {
  p = await historyProject(t.server);
  const when = ago(60_000);
  const batch = [
    customerEvent('cust-1', { phone: '13800000001', svcUserId: p.sales.id }),
    customerEvent('cust-2', { phone: '13800000001', svcUserId: p.sales.id }),
    event('Link', 'L1', { name: 'Deck', type: 1, creatorId: p.master.id, tags: ['ai'] }),
    event('LinkViewLog', 'V1', {
      linkId: 'L1',
      viewerId: 'cust-1',
      viewTime: when,
      durations: [{ id: 'D1', pageIndex: '1', duration: '3000', sortIndex: 0 }],
    }),
    event('Call', 'C1', {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'cust-1',
      callStatus: 1,
      duration: 30,
      callTime: when,
    }),
    ...['access_site', 'web_page_view', 'send_message'].map((action, i) =>
      event('BehaviourLog', `B${i}`, {
        customerId: 'cust-1',
        action,
        when,
        content: JSON.stringify({ web_access_log_id: 'w1', title: 'Home', site: 'example.com' }),
      }),
    ),
    event('Link', 'L2', { name: 'Sheet', type: 1, creatorId: p.master.id }),
    ...['V2', 'V3'].map((id) => event('LinkViewLog', id, { linkId: 'L2', viewerId: 'anon-1', viewTime: when })),
    // Records that join other records: one link view for cust-1's twin, three (two links) for cust-3.
    customerEvent('cust-3', { svcUserId: p.sales.id }),
    event('BehaviourLog', 'J1', {
      customerId: 'cust-2',
      action: 'link_view_log',
      when,
      content: JSON.stringify({ linkId: 'L1', linkViewLogId: 'V1' }),
    }),
    ...[
      ['L1', 'V1'],
      ['L2', 'V2'],
      ['L2', 'V3'],
    ].map(([linkId, viewId], i) =>
      event('BehaviourLog', `J${i + 2}`, {
        customerId: 'cust-3',
        action: 'link_view_log',
        when,
        content: JSON.stringify({ linkId, linkViewLogId: viewId }),
      }),
    ),
  ];
  expect((await ingest(t.server, p, batch)).json()).toMatchObject({ status: 1 });

  // Every statement of a request: prepared reads and anything through Kysely (writes included).
  const reader = t.server.ctx.database.reader;
  const counted = <F>(read: F): F =>
    ((q: { name: string }, ...args: unknown[]) => {
      statements.push(q.name);
      return (read as (...a: unknown[]) => unknown).call(reader, q, ...args);
    }) as F;
  reader.all = counted(reader.all);
  reader.first = counted(reader.first);
  const executor = t.server.ctx.database.db.getExecutor();
  const executeQuery = executor.executeQuery.bind(executor);
  executor.executeQuery = ((query, ...rest) => {
    statements.push(query.sql.slice(0, 80));
    return executeQuery(query, ...rest);
  }) as typeof executor.executeQuery;
});

/** The statements one request runs once the caches are warm, as the Admin: a manager who is neither
 * the owner (whose detail view writes) nor the link's creator (whose view log read writes). */
async function statementsOf(url: string): Promise<string[]> {
  const get = () => t.server.api.get(url, { token: p.admin.token });
  await get(); // fills the token and membership caches
  statements = [];
  const res = await get();
  expect(res.json()).toMatchObject({ status: 1 });
  const data = (res.json() as { data: unknown }).data;
  expect(Array.isArray(data) ? data.length : Object.keys(data as object).length).toBeGreaterThan(0);
  return [...statements];
}

describe('one statement per hot read', () => {
  const routes: Record<string, () => string> = {
    'customer detail': () => '/api/v1.7/customer/cust-2/detail',
    'customer list': () => `/api/v1.7/app/${p.appId}/member/all/customers?start_index=0&count=20`,
    'customer list, a later page': () => `/api/v1.7/app/${p.appId}/member/all/customers?start_index=1&count=20`,
    'search by phone': () => `/api/v1.7/app/${p.appId}/customer/appSearch?condition=13800000001`,
    'behaviour list': () => `/api/v1.7/app/${p.appId}/member/customer/cust-1/behaviour?count=20`,
    overview: () => '/api/v1.7/customer/cust-1/overview',
    'overview, 7 days': () => '/api/v1.7/customer/cust-1/overview?time_range_type=4',
    'calls list': () => `/api/v1.7/calls?app_id=${p.appId}&count=20`,
    'view logs': () => '/api/v1.7/link/L1/view-logs?count=20',
  };
  for (const [name, url] of Object.entries(routes)) {
    it(name, async () => {
      // The Admin: a manager who is neither the owner (whose detail view writes) nor the link's creator.
      expect(await statementsOf(url())).toEqual([expect.any(String)]);
    });
  }
});

describe('a behaviour page whose records join others', () => {
  it('costs the same 4 statements for one joined record as for three over two links (batched, never per row)', async () => {
    const one = await statementsOf(`/api/v1.7/app/${p.appId}/member/customer/cust-2/behaviour?count=20`);
    const three = await statementsOf(`/api/v1.7/app/${p.appId}/member/customer/cust-3/behaviour?count=20`);
    expect(three).toEqual(one);
    // The page, then per kind of joined record one batched look-up: view logs (with their durations
    // and viewer check), links, link counters.
    expect(one).toHaveLength(4);
  });
});
