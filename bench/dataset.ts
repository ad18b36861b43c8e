/**
 * The dataset `npm run bench` (bench/run.ts) measures: generated through the ingestion API of the
 * server it runs, as one project with 20 members (bench/README.md "Datasets").
 */
import { cli, cpuMsOf } from './instance.ts';
import type { Dataset } from './scenarios.ts';

/** The dataset's sizes, by `--size`. */
export const PRESETS = {
  quick: { customers: 2_000, big: 10_000, small: 1_000, spread: 9_000, calls: 1_000, links: 100, viewLogs: 5_000 },
  small: { customers: 100_000, big: 100_000, small: 1_000, spread: 899_000, calls: 10_000, links: 1_000, viewLogs: 100_000 },
  default: { customers: 1_000_000, big: 100_000, small: 1_000, spread: 9_899_000, calls: 100_000, links: 10_000, viewLogs: 1_000_000 },
} as const;
export type Preset = { readonly [K in keyof (typeof PRESETS)['quick']]: number };

/** One request to the server; the answer's status and its JSON body (null when empty). */
export async function call(base: string, method: string, url: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as Record<string, unknown> & { data: unknown } };
}

/** The secret of the dataset's project, which its ingestion calls carry. */
export async function appSecret(base: string, dataset: Dataset): Promise<string> {
  const apps = await call(base, 'GET', '/api/v1.7/my-apps', { authorization: `Bearer ${dataset.token}` });
  return String((apps.json.data as { id: string; secret: string }[]).find((a) => a.id === dataset.appId)?.secret);
}

/**
 * The ingestion of the server `serverPid` (its CPU time is measured per phase): sends batches of
 * ingestion events, two requests in flight; returns records per second, and keeps the server's CPU
 * time per 1,000 records under `phase` in `cpuPer1000`.
 */
function ingester(serverPid: number, cpuPer1000: Record<string, number>) {
  return async (
    base: string,
    appId: string,
    secret: string,
    total: number,
    make: (i: number) => unknown,
    phase?: string,
  ): Promise<number> => {
    const started = performance.now();
    const cpu0 = cpuMsOf(serverPid);
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const from = next;
        next = Math.min(total, next + 1000);
        const batch = Array.from({ length: next - from }, (_, j) => make(from + j));
        const res = await call(
          base,
          'POST',
          `/api/v1.7/app/${appId}/events`,
          { 'content-type': 'application/json', 'x-app-secret': secret },
          JSON.stringify(batch),
        );
        if (res.json?.status !== 1) throw new Error(`ingestion failed: ${JSON.stringify(res.json).slice(0, 500)}`);
      }
    };
    await Promise.all([worker(), worker()]);
    if (phase !== undefined && serverPid > 0) cpuPer1000[phase] = ((cpuMsOf(serverPid) - cpu0) / total) * 1000;
    return total / ((performance.now() - started) / 1000);
  };
}

const ev = (domainType: string, domainId: string, body: Record<string, unknown>) => ({ event_type: 'create', domainType, domainId, body });
const DAY = 24 * 3600 * 1000;
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Generates the dataset of `preset` through the server at `base` (`serverPid`, whose CPU time is
 * measured per phase; `env` names its database for the CLI): the figures are each phase's records per
 * second and CPU ms per 1,000 records, and the generation's seconds. With `noScores`, no record earns
 * points (no key pages, no forms phase).
 */
export async function generate(
  base: string,
  env: Record<string, string>,
  options: { preset: Preset; noScores: boolean; serverPid: number },
) {
  const { preset, noScores, serverPid } = options;
  /** Server CPU ms per 1,000 records of each generation phase, by the phase's figure name. */
  const cpuPer1000: Record<string, number> = {};
  const ingest = ingester(serverPid, cpuPer1000);
  const t0 = performance.now();
  const client = JSON.parse(await cli(['client', 'create', '--name', 'bench'], env)) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  const username = '13900000000';
  const password = 'bench password';
  await call(base, 'POST', '/svcuser/oauth2/register', form, `phoneNum=${username}&password=${encodeURIComponent(password)}`);
  const login = await call(
    base,
    'POST',
    '/svcuser/oauth2/access_token',
    form,
    `grant_type=password&username=${username}&password=${encodeURIComponent(password)}`,
  );
  const token = String((login.json as unknown as { access_token: string }).access_token);
  const refreshToken = String((login.json as unknown as { refresh_token: string }).refresh_token);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' };
  const appId = String(((await call(base, 'POST', '/api/v1.7/apps', auth, 'name=Bench')).json.data as { appId: string }).appId);
  // The other 19 of the project's 20 members.
  for (let i = 0; i < 19; i++) {
    const reg = await call(
      base,
      'POST',
      '/svcuser/oauth2/register',
      form,
      `phoneNum=1390000${String(i + 1).padStart(4, '0')}&password=${encodeURIComponent(password)}`,
    );
    const memberToken = String((reg.json as unknown as { access_token: string }).access_token);
    const info = await call(base, 'GET', '/svcuser/oauth2/getUserInfoByAccessToken', { authorization: `Bearer ${memberToken}` });
    const id = (info.json as unknown as { id: number }).id;
    const added = await call(base, 'POST', `/api/v1.7/app/${appId}/members`, auth, `svc_user_id=${id}`);
    if (added.json?.status !== 1) throw new Error(`adding member ${id} failed: ${JSON.stringify(added.json)}`);
  }
  const secret = String(((await call(base, 'GET', '/api/v1.7/my-apps', auth)).json.data as { id: string; secret: string }[])[0]?.secret);
  // The site's pricing pages are key pages (docs/scoring.md): a third of the site visits below earn points.
  // A server without scoring answers 404 and scores nothing: the same records, for before/after comparisons.
  if (!noScores) {
    const scoring = await fetch(`${base}/api/v1.7/app/${appId}/scoring`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ site_key_pages: ['example.com/pricing'] }),
    });
    await scoring.arrayBuffer();
  }
  const now = Date.now();
  const figures: Record<string, number> = {};
  figures.customersPerSecond = await ingest(base, appId, secret, preset.customers, (i) =>
    ev('Customer', `c${i}`, { name: `Customer ${i}`, phone: `138${String(i).padStart(8, '0')}` }),
  );
  figures.linksPerSecond = await ingest(base, appId, secret, preset.links, (i) =>
    ev('Link', `l${i}`, { name: `Link ${i}`, type: 2, website: 'https://example.com', creatorId: '1', tags: [`tag${i % 7}`] }),
  );
  figures.viewLogsPerSecond = await ingest(base, appId, secret, preset.viewLogs, (i) =>
    ev('LinkViewLog', `v${i}`, {
      linkId: i < preset.viewLogs / 2 ? 'l0' : `l${i % preset.links}`,
      viewTime: fmt(now - (i % 90) * DAY),
      viewerId: `visitor${i % 5000}`,
    }),
  );
  figures.callsPerSecond = await ingest(base, appId, secret, preset.calls, (i) =>
    ev('Call', `k${i}`, {
      fromUserType: 2,
      fromUserId: '1',
      toUserType: 1,
      toUserId: `c${i % preset.customers}`,
      callStatus: i % 2,
      callTime: fmt(now - (i % 300) * 3600_000),
      duration: i % 1200,
    }),
  );
  const behaviour = (customer: string) => (i: number) => {
    const when = fmt(now - (i % 200) * DAY - (i % 86_400) * 1000);
    const kind = i % 3;
    if (kind === 0) return ev('BehaviourLog', `${customer}-b${i}`, { customerId: customer, action: 'send_message', when });
    if (kind === 1)
      return ev('BehaviourLog', `${customer}-b${i}`, {
        customerId: customer,
        action: 'visit_record',
        when,
        content: JSON.stringify({ customer_id: customer }),
      });
    return ev('BehaviourLog', `${customer}-b${i}`, {
      customerId: customer,
      action: 'access_site',
      when,
      content: JSON.stringify({
        web_access_log_id: `w${i}`,
        title: `Page ${i % 13}`,
        site: 'example.com',
        url: `https://example.com/${i % 9 === 2 ? 'pricing' : 'blog'}/${i % 13}`,
      }),
    });
  };
  figures.behaviourPerSecondBig = await ingest(base, appId, secret, preset.big, behaviour('c0'), 'behaviourCpuMsPer1000Big');
  await ingest(base, appId, secret, preset.small, behaviour('c1'));
  // The rest spread over 1,000 customers, as the ingestion target says.
  figures.behaviourPerSecond = await ingest(
    base,
    appId,
    secret,
    preset.spread,
    (i) => behaviour(`c${2 + (i % Math.min(1000, preset.customers - 2))}`)(i),
    'behaviourCpuMsPer1000',
  );
  // Forms filled in by a fifth of the customers over the last two weeks, in batches over 1,000 customers:
  // every record earns points, so each batch keeps 1,000 scores (the hot leads' customers).
  if (!noScores)
    figures.scoredPerSecond = await ingest(
      base,
      appId,
      secret,
      Math.floor(preset.customers / 5),
      (i) => ev('BehaviourLog', `s${i}`, { customerId: `c${i * 5}`, action: 'submit_form', when: fmt(now - (i % 1209) * 1000 * 1000) }),
      'scoredCpuMsPer1000',
    );
  Object.assign(figures, cpuPer1000);
  figures.generationSeconds = (performance.now() - t0) / 1000;
  const dataset: Dataset = {
    appId,
    token,
    refreshToken,
    basic,
    username,
    password,
    customerId: `c${Math.floor(preset.customers / 3)}`,
    bigCustomerId: 'c0',
    smallCustomerId: 'c1',
    phone: `138${String(Math.floor(preset.customers / 2)).padStart(8, '0')}`,
    linkId: 'l0',
    customers: preset.customers,
  };
  return { dataset, figures };
}
