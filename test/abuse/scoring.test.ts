// lanes: sqlite postgres
/**
 * Scores and hot leads as a weapon (docs/scoring.md): another project's id, a Sales member naming a
 * colleague, settings past every limit and weights no number should be, hostile hot-lead parameters,
 * and a flood of scoring records at one customer. Every refusal is the documented answer with nothing
 * stored, never a 5xx; the server stays up and answers another user's hot leads within a second.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseUser, addMember, createProject, readScalar, signUp, underAttack, useAbuseServer } from './harness.ts';

const ctx = useAbuseServer();
let owner: AbuseUser;
let sales: AbuseUser;
let colleague: AbuseUser;
let stranger: AbuseUser;
let appId = '';
let secret = '';
let otherApp = '';

async function call(user: AbuseUser, method: string, path: string, body?: unknown, query?: Record<string, string>) {
  const url = new URL(`${ctx.server.base}${path}`);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method,
    headers: { ...user.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: { status?: number; code?: string; error?: string; data?: unknown } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    // An HTML 404 page, or a 413 closed early.
  }
  return { status: res.status, body: json };
}

const ingest = (batch: unknown[]) =>
  fetch(`${ctx.server.base}/api/v1.7/app/${appId}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-app-secret': secret },
    body: JSON.stringify(batch),
  });
const ev = (domainType: string, domainId: string, body: Record<string, unknown>) => ({ event_type: 'create', domainType, domainId, body });
const settingsOf = async () => (await call(owner, 'GET', `/api/v1.7/app/${appId}/scoring`)).body.data as Record<string, unknown>;

beforeAll(async () => {
  [owner, sales, colleague, stranger] = await Promise.all([signUp(ctx.server), signUp(ctx.server), signUp(ctx.server), signUp(ctx.server)]);
  appId = (await createProject(ctx.server, owner, 'Scoring abuse')).appId;
  otherApp = (await createProject(ctx.server, stranger, 'Elsewhere')).appId;
  for (const m of [sales, colleague]) {
    await addMember(ctx.server, owner, appId, m);
    await call(m, 'POST', `/api/v1.7/user/membership/${appId}/accept`);
  }
  const apps = (await call(owner, 'GET', '/api/v1.7/my-apps')).body.data as { id: string; secret: string }[];
  secret = apps.find((a) => a.id === appId)?.secret as string;
  const res = await ingest([
    ev('Customer', 'ab-mine', { name: 'Mine', svcUserId: String(sales.id) }),
    ev('Customer', 'ab-theirs', { name: 'Theirs', svcUserId: String(colleague.id), company: 'Secret Co' }),
    ev('BehaviourLog', 'ab-theirs-form', { customerId: 'ab-theirs', action: 'submit_form', when: new Date().toISOString() }),
  ]);
  expect(((await res.json()) as { status: number }).status).toBe(1);
});

describe('scores under attack', { timeout: 180_000 }, () => {
  it("another project's member and a made-up project learn nothing and change nothing", async () => {
    const before = await settingsOf();
    for (const [method, path, body] of [
      ['GET', `/api/v1.7/app/${appId}/scoring`, undefined],
      ['PUT', `/api/v1.7/app/${appId}/scoring`, { weights: { form: 1000 } }],
      ['GET', `/api/v1.7/app/${appId}/hot-leads`, undefined],
    ] as const) {
      const res = await call(stranger, method, path, body);
      expect(res.status, path).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain('Secret Co');
    }
    // Their own project's id with this project's customer: nothing of it.
    const own = await call(stranger, 'GET', `/api/v1.7/app/${otherApp}/hot-leads`);
    expect(own.body).toMatchObject({ status: 1, data: [] });
    const missing = await call(owner, 'GET', '/api/v1.7/app/00000000-0000-7000-8000-000000000000/hot-leads');
    expect(missing.body).toMatchObject({ status: 0, code: 'app_not_found' });
    expect(await settingsOf()).toEqual(before);
  });

  it("a Sales member naming a colleague's customers is refused; their own list has none of the colleague's", async () => {
    expect((await call(sales, 'GET', `/api/v1.7/app/${appId}/hot-leads`, undefined, { svc_user_id: String(colleague.id) })).status).toBe(
      403,
    );
    expect(
      (await call(sales, 'GET', `/api/v1.7/app/${appId}/hot-leads`, undefined, { svc_user_id: String(colleague.id), group_by: 'company' }))
        .status,
    ).toBe(403);
    const own = await call(sales, 'GET', `/api/v1.7/app/${appId}/hot-leads`, undefined, { group_by: 'company' });
    expect(own.body.status).toBe(1);
    expect(JSON.stringify(own.body)).not.toContain('Secret Co');
    expect((await call(sales, 'PUT', `/api/v1.7/app/${appId}/scoring`, { weights: { form: 0 } })).status).toBe(403);
  });

  it('hostile hot-lead parameters get their documented codes, never a 5xx', async () => {
    for (const query of <Record<string, string>[]>[
      { svc_user_id: '1 or 1=1; --' },
      { svc_user_id: '99999999999' },
      { svc_user_id: 'x'.repeat(17) },
      { group_by: "company'; drop table customers; --" },
      { group_by: 'x'.repeat(33) },
      { start_index: '-1' },
      { count: '1e3' },
    ]) {
      const res = await call(owner, 'GET', `/api/v1.7/app/${appId}/hot-leads`, undefined, query);
      expect(res.status, JSON.stringify(query)).toBeLessThan(500);
      expect(res.body.status ?? 0, JSON.stringify(query)).toBe(0);
    }
  });

  it('bad weights and settings past every limit are scoring_invalid (or 413) and store nothing', async () => {
    const before = await settingsOf();
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 200; i += 1) at = (at.a = {}) as Record<string, unknown>;
    for (const body of [
      { weights: { form: 'NaN' } },
      { weights: { form: 'Infinity' } },
      { weights: { form: '1e3' } },
      { weights: { form: 1e308 } },
      { weights: { form: -0.5 } },
      { weights: { form: [15] } },
      { weights: { __proto__: { form: 1 }, deck_read: 5, constructor: 1 } },
      { weights: deep },
      { weights: 'x'.repeat(200_000) },
      { half_life_days: 1e9 },
      { deck_share: '0.5; drop table score_settings' },
      { key_pages: Array.from({ length: 101 }, (_, i) => ({ fileId: `f${i}`, pages: [1] })) },
      { key_pages: [{ fileId: 'f', pages: Array.from({ length: 201 }, (_, i) => i + 1) }] },
      { key_pages: [{ fileId: 'x'.repeat(65), pages: [1] }] },
      { site_key_pages: ['x'.repeat(513)] },
      { site_key_pages: [{ url: 'example.com' }] },
    ]) {
      const res = await call(owner, 'PUT', `/api/v1.7/app/${appId}/scoring`, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(200);
      expect(res.body, JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 0, code: 'scoring_invalid' });
    }
    const huge = await call(owner, 'PUT', `/api/v1.7/app/${appId}/scoring`, JSON.stringify({ site_key_pages: ['x'.repeat(300_000)] }));
    expect(huge.status).toBe(413);
    expect(await settingsOf()).toEqual(before);
    // The most the limits allow is taken.
    const most = await call(owner, 'PUT', `/api/v1.7/app/${appId}/scoring`, {
      key_pages: Array.from({ length: 100 }, (_, i) => ({ fileId: `file-${i}`, pages: Array.from({ length: 200 }, (_, n) => n + 1) })),
      site_key_pages: Array.from({ length: 50 }, (_, i) => `example.com/${'p'.repeat(400)}${i}`),
    });
    expect(most.body.status).toBe(1);
  });

  it('a flood of scoring records at one customer: every point counted, the server stays up and answers within a second', async () => {
    await call(owner, 'PUT', `/api/v1.7/app/${appId}/scoring`, { weights: { form: 1 }, half_life_days: 365 });
    const batches = 12;
    const per = 500;
    const attacked = await underAttack(
      ctx.server,
      async () => {
        // Three producers at once, each batch at the same customer.
        let next = 0;
        const answers: unknown[] = [];
        const producer = async () => {
          for (let b = next++; b < batches; b = next++) {
            const batch = Array.from({ length: per }, (_, i) =>
              ev('BehaviourLog', `flood-${b}-${i}`, { customerId: 'ab-mine', action: 'submit_form', when: new Date().toISOString() }),
            );
            answers.push(await (await ingest(batch)).json());
          }
        };
        await Promise.all([producer(), producer(), producer()]);
        return answers;
      },
      () => fetch(`${ctx.server.base}/api/v1.7/app/${appId}/hot-leads`, { headers: colleague.auth }),
    );
    expect(attacked.result.every((r) => (r as { status: number }).status === 1)).toBe(true);
    expect(ctx.server.alive()).toBe(true);
    expect(attacked.worstMs).toBeLessThan(1000);
    // Concurrent batches at one customer add up: none lost.
    const value = Number(await readScalar(ctx.server, "select value from customer_scores where customer_id = 'ab-mine'"));
    expect(value).toBeGreaterThan(batches * per * 0.99);
    expect(value).toBeLessThanOrEqual(batches * per + 1);
  });
});
