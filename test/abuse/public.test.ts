// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AbuseProject,
  type AbuseServer,
  type AbuseUser,
  createProject,
  readScalar,
  signUp,
  underAttack,
  useAbuseServer,
} from './harness.ts';

/**
 * Strangers on the public endpoints (docs/operations.md, "Public endpoints"): filling a project's
 * database through the site snippet's collect call with its public key, a forged Origin and a new
 * visitor id per call, from one address and from many; guessing a link's passcode from many
 * addresses. Small limits through the environment keep the run short.
 */
const METRICS_TOKEN = 'abuse-suite-metrics-token-0123456789';
const SITE_ADDRESS_BUDGET = 20;
const DAILY_CAP = 600;
const PASSCODE_FAILURES = 5;
const ORIGIN = 'https://www.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const s = useAbuseServer({
  TRUST_PROXY: '1',
  METRICS_TOKEN,
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_SITE_IP: String(SITE_ADDRESS_BUDGET),
  SITE_ANONYMOUS_DAILY_CAP: String(DAILY_CAP),
  LINK_PASSCODE_FAILURES: String(PASSCODE_FAILURES),
});

const newId = () => randomBytes(16).toString('base64url');
const randomAddress = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
const events = (n: number) =>
  Array.from({ length: n }, () => ({ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/p/${newId()}`, title: 'A page' }));

interface Site {
  project: AbuseProject;
  key: string;
}

/** A project of `owner` with the site origin listed, and its public site key. */
async function siteOf(server: AbuseServer, owner: AbuseUser, name: string): Promise<Site> {
  const project = await createProject(server, owner, name);
  const headers = { ...owner.auth, 'content-type': 'application/json' };
  await fetch(`${server.base}/api/v1.7/app/${project.appId}`, { method: 'POST', headers, body: JSON.stringify({ site_origins: ORIGIN }) });
  const site = (await (await fetch(`${server.base}/api/v1.7/app/${project.appId}/site`, { headers: owner.auth })).json()) as {
    data: { siteKey: string };
  };
  return { project, key: site.data.siteKey };
}

function collect(server: AbuseServer, site: Site, body: unknown, address: string): Promise<Response> {
  return fetch(`${server.base}/t/collect?k=${site.key}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: ORIGIN, 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });
}

/** Runs `total` calls of `call`, `concurrency` at a time; answers each call's status and code. */
async function flood(total: number, concurrency: number, call: () => Promise<Response>): Promise<{ status: number; code?: string }[]> {
  const out: { status: number; code?: string }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const res = await call();
        const text = await res.text();
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        out.push({ status: res.status, ...(code === undefined ? {} : { code }) });
      }
    }),
  );
  return out;
}

const storedAnonymous = async (server: AbuseServer, appId: string) =>
  Number(await readScalar(server, 'select count(*) as n from site_events where app_id = ?', [appId]));

let owner: AbuseUser;
let attacked: Site;
let victim: AbuseUser;
let victimSite: Site;
let victimBefore: string;

/** What another user sees of their own: must not change under the attacks. */
const victimView = async () => {
  const apps = await (await fetch(`${s.server.base}/api/v1.7/my-apps`, { headers: victim.auth })).json();
  const detail = await (await fetch(`${s.server.base}/api/v1.7/app/${victimSite.project.appId}`, { headers: victim.auth })).json();
  return JSON.stringify({ apps, detail });
};

let probes = 0;
/** Another user's API request and another project's collect call (from an address of its own), in turn: each must answer 2xx. */
const probe = () => {
  probes += 1;
  return probes % 2 === 1
    ? fetch(`${s.server.base}/api/v1.7/my-apps`, { headers: victim.auth })
    : collect(s.server, victimSite, { v: newId(), s: newId(), e: events(1) }, randomAddress());
};

beforeAll(async () => {
  owner = await signUp(s.server);
  attacked = await siteOf(s.server, owner, 'Attacked site');
  victim = await signUp(s.server);
  victimSite = await siteOf(s.server, victim, 'Another site');
  victimBefore = await victimView();
  // The probes' paths once before any attack: what is measured is the attack's effect, not a cold start.
  for (let i = 0; i < 4; i += 1) expect((await probe()).ok).toBe(true);
  // A customer of the attacked project, whom its site identifies.
  const ingest = await fetch(`${s.server.base}/api/v1.7/app/${attacked.project.appId}/events`, {
    method: 'POST',
    headers: { 'x-app-secret': attacked.project.secret, 'content-type': 'application/json' },
    body: JSON.stringify([
      { event_type: 'create', domainType: 'Customer', domainId: 'ada', body: { name: 'Ada', email: 'ada@example.com' } },
    ]),
  });
  expect(((await ingest.json()) as { status: number }).status).toBe(1);
});

describe('the site collect call', () => {
  it('from one address with a new visitor id per call: cut by the per-address budget', async () => {
    const attacker = '203.0.113.66';
    const run = await underAttack(
      s.server,
      () => flood(200, 8, () => collect(s.server, attacked, { v: newId(), s: newId(), e: events(10) }, attacker)),
      probe,
      150,
    );
    const answers = run.result;
    expect(answers.every((a) => a.status === 200 || (a.status === 429 && a.code === 'rate_limited'))).toBe(true);
    const accepted = answers.filter((a) => a.status === 200).length;
    // One window of the budget, or two when the attack crossed a window's end.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(2 * SITE_ADDRESS_BUDGET);
    expect(await storedAnonymous(s.server, attacked.project.appId)).toBe(accepted * 10);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);
  });

  it("from many addresses: the project's daily cap stops anonymous storage, counted in the metric; identified visitors go on", async () => {
    const run = await underAttack(
      s.server,
      () => flood(150, 8, () => collect(s.server, attacked, { v: newId(), s: newId(), e: events(10) }, randomAddress())),
      probe,
      150,
    );
    const answers = run.result;
    expect(answers.every((a) => a.status === 200 || (a.status === 429 && a.code === 'quota_exceeded'))).toBe(true);
    const refused = answers.filter((a) => a.code === 'quota_exceeded').length;
    expect(refused).toBeGreaterThan(75);
    const stored = await storedAnonymous(s.server, attacked.project.appId);
    expect(stored).toBeLessThanOrEqual(DAILY_CAP);
    expect(
      Number(await readScalar(s.server, 'select sum(records) as n from site_anonymous_counts where app_id = ?', [attacked.project.appId])),
    ).toBe(stored);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);

    const metrics = await (await fetch(`${s.server.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const series = (appId: string) => metrics.split('\n').find((l) => l.startsWith(`rapport_site_quota_refused_total{app_id="${appId}"}`));
    expect(Number(series(attacked.project.appId)?.split(' ')[1])).toBe(refused);
    expect(series(victimSite.project.appId)).toBeUndefined();
    // The other project stored what the probes sent.
    expect(await storedAnonymous(s.server, victimSite.project.appId)).toBeGreaterThan(0);

    // A visitor who says who they are is the customer's: their records are stored.
    const v = newId();
    const identified = await collect(
      s.server,
      attacked,
      { v, s: newId(), e: [...events(3), { t: 'identify', email: 'ada@example.com' }] },
      randomAddress(),
    );
    expect(await identified.json()).toEqual({ status: 1, data: {} });
    const behaviour = (await (
      await fetch(`${s.server.base}/api/v1.7/app/${attacked.project.appId}/member/customer/ada/behaviour?count=50`, {
        headers: owner.auth,
      })
    ).json()) as { data: { action: string }[] };
    expect(behaviour.data.filter((r) => r.action === 'web_page_view')).toHaveLength(3);
    expect(await storedAnonymous(s.server, attacked.project.appId)).toBe(stored);
  });
});

describe("a link's passcode", () => {
  it('guessed from many addresses: the link locks after a few wrong ones, the right one refused too', async () => {
    const made = await fetch(`${s.server.base}/api/v1.7/app/${attacked.project.appId}/links`, {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Guarded', type: 2, website: 'https://www.example.com/deck', passcode: 'correct horse' }),
    });
    const link = ((await made.json()) as { data: { shareToken: string } }).data;
    const guess = (passcode: string) =>
      fetch(`${s.server.base}/l/${link.shareToken}/unlock`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA, 'x-forwarded-for': randomAddress() },
        body: `passcode=${encodeURIComponent(passcode)}`,
      });
    const run = await underAttack(s.server, () => flood(100, 8, () => guess(newId())), probe, 150);
    const statuses = run.result.map((a) => a.status);
    expect(statuses.every((x) => x === 403 || x === 429)).toBe(true);
    // Guesses already being checked when the lockout began may still be answered.
    expect(statuses.filter((x) => x === 403).length).toBeLessThanOrEqual(PASSCODE_FAILURES + 10);
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThan(80);
    const right = await guess('correct horse');
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.headers.get('set-cookie')).toBeNull();
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);
  });
});
