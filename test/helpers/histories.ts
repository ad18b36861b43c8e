import { expect } from 'vitest';
import { type TestUser, activeUser, createClient } from './fixtures.ts';
import type { TestServer } from './harness.ts';

/** A project with a Master, an Admin, two Sales members and an outsider, and its ingestion secret. */
export interface HistoryProject {
  appId: string;
  secret: string;
  master: TestUser;
  admin: TestUser;
  sales: TestUser;
  sales2: TestUser;
  outsider: TestUser;
}

export async function historyProject(server: TestServer): Promise<HistoryProject> {
  const client = await createClient(server);
  const [master, admin, sales, sales2, outsider] = await Promise.all([
    activeUser(server, client),
    activeUser(server, client),
    activeUser(server, client),
    activeUser(server, client),
    activeUser(server, client),
  ]);
  const created = await server.api.post('/api/v1.7/apps', { name: 'Histories' }, { token: master.token });
  const appId = (created.json() as { data: { appId: string } }).data.appId;

  for (const [user, role] of [
    [admin, 'Admin'],
    [sales, 'Sales'],
    [sales2, 'Sales'],
  ] as const) {
    const res = await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: user.id, role }, { token: master.token });
    if (res.statusCode !== 200) console.log(res.statusCode, res.body.slice(0, 300));
    expect(res.json().status).toBe(1);
  }
  const apps = await server.api.get('/api/v1.7/my-apps', { token: master.token });
  const secret = (apps.json() as { data: { id: string; secret: string }[] }).data.find((a) => a.id === appId)?.secret as string;
  return { appId, secret, master: master, admin, sales, sales2, outsider };
}

export const event = (domainType: string, domainId: string, body: Record<string, unknown>) => ({
  event_type: 'create',
  domainType,
  domainId,
  body,
});

/** Posts a batch with the project secret. */
export function ingest(server: TestServer, p: HistoryProject, batch: unknown, opts: { secret?: string; token?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.secret !== undefined || opts.token === undefined) headers['x-app-secret'] = opts.secret ?? p.secret;
  return server.api.post(`/api/v1.7/app/${p.appId}/events`, batch, { headers, ...(opts.token ? { token: opts.token } : {}) });
}

/** Customers for history tests: ingested Customer events (through the customers module's validation). */
export function customerEvent(id: string, fields: Record<string, unknown> = {}) {
  return event('Customer', id, { name: `Customer ${id}`, ...fields });
}

/** `yyyy-MM-dd HH:mm:ss` (UTC, the test server's zone) of now minus `ms`. */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().slice(0, 19).replace('T', ' ');
}
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** Customers for history tests, owned by the given members. */
export async function addCustomers(
  server: TestServer,
  p: HistoryProject,
  customers: { id: string; owner: number; name?: string; dealUserId?: string }[],
) {
  const now = Date.now();
  await server.ctx.database.db
    .insertInto('customers')
    .values(
      customers.map((c) => ({
        id: c.id,
        app_id: p.appId,
        owner_id: c.owner,
        name: c.name ?? `Customer ${c.id}`,
        deal_user_id: c.dealUserId ?? null,
        status: 1,
        is_new: 1,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

export interface FeedMessage {
  id: string;
  event_type: string;
  domainType: string;
  domainId: string;
  body: Record<string, unknown>;
  createdAt: string;
}

/** Every event of the project in the pull feed, in feed order (read as a consumer reads it). */
export async function feedEvents(server: TestServer, appId: string, token: string): Promise<FeedMessage[]> {
  const out: FeedMessage[] = [];
  let after = '';
  for (;;) {
    const res = await server.api.get(`/api/v1.7/app/${appId}/events`, { token, query: { count: 100, ...(after ? { after } : {}) } });
    const data = (res.json() as { data: { events: FeedMessage[]; next: string; hasMore: boolean } }).data;
    out.push(...data.events);
    if (!data.hasMore) return out;
    after = data.next;
  }
}

/** A behaviour record's client and location fields when the event gave none (all null). */
export const NO_CLIENT_FIELDS = {
  clientName: null,
  clientVersion: null,
  os: null,
  osVersion: null,
  net: null,
  ip: null,
  location: null,
  province: null,
  city: null,
};
