// lanes: sqlite postgres
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutAppIdCheck } from '../../../src/db/app-id-check.ts';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type RunningRelay, startRelay } from '../../helpers/relay.ts';
import { type HistoryProject, addCustomers, ago, event, historyProject, ingest, MINUTE } from '../../helpers/histories.ts';

/**
 * The live stream over a real connection: who sees which event, resuming with Last-Event-ID,
 * heartbeats, refusals in the JSON error shape, and streams ended when the server closes.
 */
const t = useTestServer({ LIVE_POLL_MS: '20', IDLE_TIMEOUT: '2', LIVE_MAX_STREAMS_PER_USER: '3', LIVE_MAX_STREAMS: '8' });
let p: HistoryProject;
let q: HistoryProject;
let base = '';
let relay: RunningRelay;

interface LiveEvent {
  id: string;
  event: string;
  data: { id: string; event_type: string; domainType: string; domainId: string; body: Record<string, unknown>; createdAt: string };
}

/** An open stream: the events and comments received so far, and a way to wait for more. */
interface Stream {
  status: number;
  headers: Headers;
  contentType: string;
  events: LiveEvent[];
  comments: string[];
  ended: boolean;
  /** A refusal's JSON body. */
  body?: string;
  until(what: string, done: () => boolean): Promise<void>;
  close(): void;
}

async function connect(appId: string, token: string, lastEventId?: string): Promise<Stream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const res = await fetch(`${base}/api/v1.7/app/${appId}/live`, { headers, signal: controller.signal });
  const s: Stream = {
    status: res.status,
    headers: res.headers,
    contentType: res.headers.get('content-type') ?? '',
    events: [],
    comments: [],
    ended: false,
    async until(what, done) {
      const deadline = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`stream: gave up waiting for ${what}; got ${JSON.stringify(s.events.map((e) => e.data.domainId))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => controller.abort(),
  };
  if (!s.contentType.startsWith('text/event-stream')) {
    s.body = await res.text();
    s.ended = true;
    return s;
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) s.comments.push(line.slice(1).trim());
            else {
              const i = line.indexOf(':');
              fields[line.slice(0, i)] = line.slice(i + 1).trimStart();
            }
          }
          if (fields.data !== undefined)
            s.events.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) as LiveEvent['data'] });
        }
      }
    } catch {
      // aborted by the test
    }
    s.ended = true;
  })();
  return s;
}

const ids = (s: Stream) => s.events.filter((e) => e.data.domainType === 'BehaviourLog').map((e) => e.data.domainId);
const rec = (id: string, customerId: string, action: string, content: unknown) =>
  event('BehaviourLog', id, { customerId, action, when: ago(MINUTE), content: JSON.stringify(content) });

beforeAll(async () => {
  p = await historyProject(t.server);
  q = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'live-a', owner: p.sales.id, name: 'Alice' },
    { id: 'live-b', owner: p.sales2.id, name: 'Bob' },
  ]);
  // A link of the second Sales member: its views are theirs to see, whoever owns the customer.
  expect(
    (
      await ingest(t.server, p, [event('Link', 'live-L1', { name: 'Deck', type: 1, creatorId: p.sales2.id, shareToken: 'live-tok-1' })])
    ).json().status,
  ).toBe(1);
  await t.server.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.server.app.server.address() as AddressInfo).port}`;
  relay = startRelay(t.server.ctx, { pollMs: 10 });
});

afterAll(async () => {
  await relay?.stop();
});

/** A project of its own: its Master, an Admin (who sees every event), the OAuth client of their tokens. */
async function team(): Promise<{ client: TestClient; master: TestUser; admin: TestUser; appId: string }> {
  const client = await createClient(t.server);
  const [master, admin] = await Promise.all([activeUser(t.server, client), activeUser(t.server, client)]);
  const appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Live access' }, { token: master.token })).json().data.appId as string;
  const added = await t.server.api.post(
    `/api/v1.7/app/${appId}/members`,
    { svc_user_id: admin.id, role: 'Admin' },
    { token: master.token },
  );
  expect(added.json().status).toBe(1);
  return { client, master, admin, appId };
}

const addCustomer = async (appId: string, master: TestUser, name: string) =>
  expect(
    (await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customers`, { name }, { token: master.token })).json().status,
  ).toBe(1);
const names = (s: Stream) => s.events.filter((e) => e.data.domainType === 'Customer').map((e) => String(e.data.body.name));

/** Waits until the server holds no stream any more (closing is asynchronous on its side). */
async function drained(): Promise<void> {
  const deadline = Date.now() + 5000;
  while (t.server.services.live.streams() > 0) {
    if (Date.now() > deadline) throw new Error(`${t.server.services.live.streams()} streams still open`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Access is checked again before every delivery (so nothing written after the loss is sent) and
 * every 2 s on a quiet stream (so it ends within 5 s).
 */
async function expectEndedAfterLoss(appId: string, master: TestUser, stream: Stream, lose: () => Promise<void>, loud: boolean) {
  await addCustomer(appId, master, 'Before');
  await stream.until('the customer made before', () => names(stream).includes('Before'));
  const lost = Date.now();
  await lose();
  if (loud) {
    const watcher = await connect(appId, master.token);
    await watcher.until('the opening comment', () => watcher.comments.includes('connected'));
    await addCustomer(appId, master, 'After');
    await watcher.until('the customer made after', () => names(watcher).includes('After'));
    watcher.close();
  }
  await stream.until('the end of the stream', () => stream.ended);
  expect(Date.now() - lost).toBeLessThan(5000);
  expect(names(stream)).toEqual(['Before']);
  expect(stream.comments.filter((c) => c.startsWith('closed:'))).toHaveLength(1);
}

describe('live streams follow access', () => {
  it("a removed member's stream ends, and a customer created after the removal never reaches it", async () => {
    const { master, admin, appId } = await team();
    const s = await connect(appId, admin.token);
    await expectEndedAfterLoss(
      appId,
      master,
      s,
      async () => {
        const res = await t.server.api.post(`/api/v1.7/app/${appId}/member/${admin.id}`, {}, { token: master.token });
        expect(res.json().status).toBe(1);
      },
      true,
    );
    expect((await connect(appId, admin.token)).status).toBe(403);
    await drained();
  });

  it("a revoked token ends its stream (log-out), and so does a revoked OAuth client; the member's other tokens stream on", async () => {
    const { client, master, admin, appId } = await team();
    const second = await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'password', username: admin.username, password: admin.password },
      { form: true, headers: { authorization: client.basic } },
    );
    const other = await connect(appId, second.json().access_token as string);
    const s = await connect(appId, admin.token);
    await expectEndedAfterLoss(
      appId,
      master,
      s,
      async () => {
        const res = await t.server.api.post(
          '/svcuser/oauth2/revoke',
          { token: admin.token },
          { form: true, headers: { authorization: client.basic } },
        );
        expect(res.statusCode).toBe(200);
      },
      true,
    );
    expect(other.ended).toBe(false);
    // Revoking the client drops every token it issued: a quiet stream ends on the periodic check.
    const revoked = Date.now();
    expect(await t.server.services.clients.revoke(client.client_id)).toBe(true);
    await other.until('the end of the other stream', () => other.ended);
    expect(Date.now() - revoked).toBeLessThan(5000);
    await drained();
  });

  it('a quiet stream ends within 5 s when its member leaves the project, and when the project is deleted', async () => {
    const left = await team();
    const s = await connect(left.appId, left.admin.token);
    await expectEndedAfterLoss(
      left.appId,
      left.master,
      s,
      async () => {
        expect(
          (await t.server.api.post(`/api/v1.7/user/membership/${left.appId}/leave`, {}, { token: left.admin.token })).json().status,
        ).toBe(1);
      },
      false,
    );

    const gone = await team();
    const m = await connect(gone.appId, gone.master.token);
    await expectEndedAfterLoss(
      gone.appId,
      gone.master,
      m,
      async () => {
        // No endpoint deletes a project (docs/projects.md): status 1 is a deleted one.
        await withoutAppIdCheck(() =>
          t.server.ctx.database.db.updateTable('apps').set({ status: 1 }).where('id', '=', gone.appId).execute(),
        );
      },
      false,
    );
    await drained();
  });

  it('a password reset ends the streams of every token of the user', async () => {
    const { master, admin, appId } = await team();
    const s = await connect(appId, admin.token);
    const fromConsole = { origin: 'http://localhost:80' };
    await expectEndedAfterLoss(
      appId,
      master,
      s,
      async () => {
        expect(
          (await t.server.api.post('/svcuser/console/password-code', { username: admin.username }, { headers: fromConsole })).statusCode,
        ).toBe(200);
        let code: string | undefined;
        for (let i = 0; i < 200 && code === undefined; i++) {
          const line = [...t.server.logs].reverse().find((l) => (l.verification as { to?: string } | undefined)?.to === admin.username);
          code = (line?.verification as { code?: string } | undefined)?.code;
          if (code === undefined) await new Promise((r) => setTimeout(r, 10));
        }
        const reset = await t.server.api.post(
          '/svcuser/console/password-reset',
          { username: admin.username, code, password: 'a brand new password' },
          { headers: fromConsole },
        );
        expect(reset.json()).toEqual({});
      },
      false,
    );
    await drained();
  });

  it('caps open streams per user and per process: past them HTTP 429 rate_limited with Retry-After', async () => {
    const teams = await Promise.all([team(), team(), team()]);
    const [a, b, c] = teams as [Awaited<ReturnType<typeof team>>, Awaited<ReturnType<typeof team>>, Awaited<ReturnType<typeof team>>];
    const open: Stream[] = [];
    for (let i = 0; i < 3; i++) open.push(await connect(a.appId, a.master.token));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    // LIVE_MAX_STREAMS_PER_USER=3: the fourth of the same user, in any project, is refused.
    const fourth = await connect(a.appId, a.master.token);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(fourth.headers.get('connection')).toBe('close');
    expect(JSON.parse(fourth.body ?? '')).toMatchObject({ status: 0, code: 'rate_limited', msg: expect.stringContaining('per user') });
    // Another user is not held back by it.
    for (let i = 0; i < 3; i++) open.push(await connect(b.appId, b.master.token));
    for (let i = 0; i < 2; i++) open.push(await connect(c.appId, c.master.token));
    expect(open.every((s) => s.status === 200)).toBe(true);
    // LIVE_MAX_STREAMS=8 open: the next is refused whoever asks.
    const ninth = await connect(c.appId, c.admin.token);
    expect(ninth.status).toBe(429);
    expect(JSON.parse(ninth.body ?? '')).toMatchObject({ status: 0, code: 'rate_limited' });
    // A closed stream gives its place back.
    open.shift()?.close();
    const deadline = Date.now() + 5000;
    let again = await connect(c.appId, c.admin.token);
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      again = await connect(c.appId, c.admin.token);
    }
    expect(again.status).toBe(200);
    for (const s of [...open, again]) s.close();
    await drained();
  });
});

describe('GET /api/v1.7/app/{app-id}/live', () => {
  it('streams each member the events they may see, in feed order, and nothing of another project', async () => {
    const master = await connect(p.appId, p.master.token);
    const sales = await connect(p.appId, p.sales.token);
    const sales2 = await connect(p.appId, p.sales2.token);
    const other = await connect(q.appId, q.master.token);
    expect(master.status).toBe(200);
    expect(master.contentType).toBe('text/event-stream; charset=utf-8');
    await master.until('the opening comment', () => master.comments.includes('connected'));

    const res = await ingest(t.server, p, [
      rec('live-b1', 'live-a', 'link_view_log', { linkId: 'live-L1', linkType: 1, linkViewLogId: 'V1', title: 'Deck' }),
      rec('live-b2', 'live-b', 'access_site', { web_access_log_id: 'wa1', title: 'Home', site: 'example.com', url: '/' }),
      rec('live-b3', 'live-a', 'customer_record', { customer_id: 'live-a' }),
    ]);
    expect(res.json().status, res.body).toBe(1);

    await master.until('three records', () => ids(master).length === 3);
    expect(ids(master)).toEqual(['live-b1', 'live-b2', 'live-b3']);
    // Sales: their own customer's records (b1, b3); the other Sales member: their customer's (b2) and their link's view (b1).
    await sales.until('two records', () => ids(sales).length === 2);
    await sales2.until('two records', () => ids(sales2).length === 2);
    expect(ids(sales)).toEqual(['live-b1', 'live-b3']);
    expect(ids(sales2)).toEqual(['live-b1', 'live-b2']);

    const first = master.events.find((e) => e.data.domainId === 'live-b1')!;
    expect(first.event).toBe('BehaviourLog.create');
    expect(Number(first.id)).toBeGreaterThan(0);
    expect(first.data).toMatchObject({
      event_type: 'create',
      domainType: 'BehaviourLog',
      body: { customerId: 'live-a', action: 'link_view_log' },
    });
    // Positions rise along the stream.
    const positions = master.events.map((e) => Number(e.id));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));

    // Another project's stream got none of it (the relay has moved past these events by now).
    await new Promise((r) => setTimeout(r, 200));
    expect(other.events).toEqual([]);

    // Resuming after the first record sends the ones after it, and only those.
    const resumed = await connect(p.appId, p.master.token, first.id);
    await resumed.until('the two later records', () => ids(resumed).length === 2);
    expect(ids(resumed)).toEqual(['live-b2', 'live-b3']);

    for (const s of [master, sales, sales2, other, resumed]) s.close();
  });

  it('keeps a quiet stream open with heartbeats inside IDLE_TIMEOUT', async () => {
    const s = await connect(p.appId, p.sales.token);
    // IDLE_TIMEOUT=2 s: a heartbeat every second keeps the connection from being taken for idle.
    await s.until('two heartbeats', () => s.comments.filter((c) => c === 'heartbeat').length >= 2);
    await new Promise((r) => setTimeout(r, 2500));
    expect(s.ended).toBe(false);
    s.close();
  });

  it('refuses in the JSON error shape before streaming', async () => {
    const json = async (appId: string, token: string, lastEventId?: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const res = await fetch(`${base}/api/v1.7/app/${appId}/live`, { headers });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await json(p.appId, p.outsider.token)).toMatchObject({ status: 403 });
    expect(await json(p.appId, q.master.token)).toMatchObject({ status: 403 });
    expect(await json('no-such-app', p.master.token)).toMatchObject({ status: 200, body: { status: 0, code: 'app_not_found' } });
    const bad = await json(p.appId, p.master.token, 'yesterday');
    // A malformed parameter is the interface's 200 envelope failure.
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ status: 0, code: 'Bad Request' });
    const anonymous = await fetch(`${base}/api/v1.7/app/${p.appId}/live`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toMatchObject({ error: expect.any(String) });
  });

  it('ends open streams when the server closes', async () => {
    const s = await connect(p.appId, p.master.token);
    await s.until('the opening comment', () => s.comments.includes('connected'));
    expect(t.server.services.live.streams()).toBeGreaterThanOrEqual(1);
    await relay.stop();
    await t.server.app.close();
    await s.until('the end of the stream', () => s.ended);
  });
});
