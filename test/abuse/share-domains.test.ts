// lanes: sqlite postgres
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseProject, type AbuseUser, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

/**
 * Host header tricks against share domains (docs/projects.md, "Share domain"): a project's link
 * shown on another project's domain, the API or console reached on a customer's domain, a domain
 * claimed twice, written in upper case, with a trailing dot, with a port; a client's own
 * X-Forwarded-Host; a flood of made-up hosts and `/tls/ask` questions. Each Host variant of a
 * domain is that domain: nothing slips through as an "unknown host".
 */
const s = useAbuseServer({
  PUBLIC_BASE_URL: 'https://rapport.example',
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_IP: '60',
  RATE_LIMIT_TLS_ASK: '60',
});

const VICTIM_DOMAIN = 'docs.victim.example';
const ATTACKER_DOMAIN = 'share.attacker.example';

interface Answer {
  status: number;
  body: string;
}

/** A request with the Host header (and others) as an attacker writes it: fetch would not let the Host be chosen. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const base = new URL(s.server.base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A viewer page without its per-page nonce, to compare two answers. */
const stable = (a: Answer) => ({ status: a.status, body: a.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, 'NONCE') });

/** Every way a browser, a proxy or an attacker may write one host. */
const variants = (domain: string) => [domain, domain.toUpperCase(), `${domain}.`, `${domain}:443`, `${domain.toUpperCase()}.:8443`];

async function api(user: AbuseUser, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.server.base}${path}`, {
    method,
    headers: { ...user.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as { status: number; code?: string; data?: unknown };
}

async function linkOf(user: AbuseUser, project: AbuseProject, website: string): Promise<{ id: string; shareToken: string }> {
  const made = await api(user, 'POST', `/api/v1.7/app/${project.appId}/links`, { name: 'Deck', type: 2, website, embed: 1 });
  expect(made.status).toBe(1);
  return made.data as { id: string; shareToken: string };
}

let victim: AbuseUser;
let attacker: AbuseUser;
let victimProject: AbuseProject;
let attackerProject: AbuseProject;
let victimLink: { id: string; shareToken: string };
let attackerLink: { id: string; shareToken: string };
let victimBefore: string;

const victimView = async () => JSON.stringify(await api(victim, 'GET', `/api/v1.7/app/${victimProject.appId}`));
/** Another user's API request on the server's own host: it must answer within a second whatever the attack. */
const probe = () => fetch(`${s.server.base}/api/v1.7/my-apps`, { headers: victim.auth });

beforeAll(async () => {
  victim = await signUp(s.server);
  attacker = await signUp(s.server);
  victimProject = await createProject(s.server, victim, 'Victim');
  attackerProject = await createProject(s.server, attacker, 'Attacker');
  expect((await api(victim, 'POST', `/api/v1.7/app/${victimProject.appId}`, { share_domain: VICTIM_DOMAIN })).status).toBe(1);
  expect((await api(attacker, 'POST', `/api/v1.7/app/${attackerProject.appId}`, { share_domain: ATTACKER_DOMAIN })).status).toBe(1);
  victimLink = await linkOf(victim, victimProject, 'https://www.victim.example/');
  attackerLink = await linkOf(attacker, attackerProject, 'https://phishing.attacker.example/');
  victimBefore = await victimView();
  for (let i = 0; i < 3; i += 1) expect((await probe()).ok).toBe(true);
});

describe('Host header tricks', () => {
  it("another project's link never opens on a share domain, however the Host is written", async () => {
    const unknown = stable(await raw('GET', '/l/AAAAAAAAAAAAAAAAAAAAAA', { host: VICTIM_DOMAIN }));
    expect(unknown.status).toBe(404);
    for (const host of variants(VICTIM_DOMAIN)) {
      expect(stable(await raw('GET', `/l/${attackerLink.shareToken}`, { host })), host).toEqual(unknown);
      expect((await raw('GET', `/link/${attackerLink.id}?share_token=${attackerLink.shareToken}`, { host })).status, host).toBe(404);
      // The victim's own link opens on every spelling of its domain.
      expect((await raw('GET', `/l/${victimLink.shareToken}`, { host })).status, host).toBe(200);
    }
    for (const host of variants(ATTACKER_DOMAIN)) {
      expect(stable(await raw('GET', `/l/${victimLink.shareToken}`, { host })), host).toEqual(unknown);
    }
  });

  it("the API and the console are not served on a share domain, whatever the Host's spelling or a client's X-Forwarded-Host", async () => {
    for (const host of variants(VICTIM_DOMAIN)) {
      for (const path of [`/api/v1.7/app/${victimProject.appId}`, '/api/v1.7/my-apps', '/console/', '/docs']) {
        const res = await raw('GET', path, { host, ...victim.auth });
        expect(res.status, `${host} ${path}`).toBe(404);
        expect(res.body).not.toContain(victimProject.appId);
      }
      // Without TRUST_PROXY a client's X-Forwarded-Host is its own word: it names nothing.
      const forwarded = await raw('GET', '/api/v1.7/my-apps', { host, 'x-forwarded-host': 'rapport.example', ...victim.auth });
      expect(forwarded.status, host).toBe(404);
      const edit = await raw(
        'POST',
        `/api/v1.7/app/${victimProject.appId}`,
        { host, 'content-type': 'application/json', ...victim.auth },
        JSON.stringify({ share_domain: '' }),
      );
      expect(edit.status, host).toBe(404);
    }
    // A claimed domain in X-Forwarded-Host does not make the server's own host a share domain either.
    expect(
      (await raw('GET', '/api/v1.7/my-apps', { host: 'rapport.example', 'x-forwarded-host': VICTIM_DOMAIN, ...victim.auth })).status,
    ).toBe(200);
    expect(await victimView()).toBe(victimBefore);
  });

  it("a domain claimed by another project cannot be claimed again in another spelling, nor as the server's own host", async () => {
    for (const share_domain of variants(VICTIM_DOMAIN).slice(0, 3)) {
      expect(await api(attacker, 'POST', `/api/v1.7/app/${attackerProject.appId}`, { share_domain }), share_domain).toMatchObject({
        status: 0,
        code: 'share_domain_taken',
      });
    }
    for (const share_domain of [
      `${VICTIM_DOMAIN}:443`,
      `https://${VICTIM_DOMAIN}`,
      'rapport.example',
      'RAPPORT.EXAMPLE.',
      '127.0.0.1',
      'localhost',
    ]) {
      expect(await api(attacker, 'POST', `/api/v1.7/app/${attackerProject.appId}`, { share_domain }), share_domain).toMatchObject({
        status: 0,
        code: 'share_domain_invalid',
      });
    }
    // The claims that failed changed neither project.
    expect(await victimView()).toBe(victimBefore);
    const mine = await api(attacker, 'GET', `/api/v1.7/app/${attackerProject.appId}`);
    expect((mine.data as { shareDomain: string }).shareDomain).toBe(ATTACKER_DOMAIN);
    // Two claims of one new domain at once: exactly one project gets it.
    const contested = 'contested.example';
    const [a, b] = await Promise.all([
      api(attacker, 'POST', `/api/v1.7/app/${attackerProject.appId}`, { share_domain: contested }),
      api(victim, 'POST', `/api/v1.7/app/${victimProject.appId}`, { share_domain: contested }),
    ]);
    expect([a.status, b.status].sort()).toEqual([0, 1]);
    expect([a, b].find((r) => r.status === 0)).toMatchObject({ code: 'share_domain_taken' });
    // Both back to their own.
    await api(attacker, 'POST', `/api/v1.7/app/${attackerProject.appId}`, { share_domain: ATTACKER_DOMAIN });
    await api(victim, 'POST', `/api/v1.7/app/${victimProject.appId}`, { share_domain: VICTIM_DOMAIN });
    expect(await victimView()).not.toContain('contested');
    // The victim's own edits moved its edit time: what it sees from here on.
    victimBefore = await victimView();
  });

  it('a flood of made-up hosts and TLS questions costs the server nothing another user notices', async () => {
    const run = await underAttack(
      s.server,
      async () => {
        const answers: number[] = [];
        for (let round = 0; round < 40; round += 1) {
          const batch = await Promise.all(
            Array.from({ length: 10 }, (_, i) => {
              const host = `${randomBytes(6).toString('hex')}.example`;
              return i % 2 === 0
                ? raw('GET', `/l/${victimLink.shareToken}`, { host: i % 4 === 0 ? host : VICTIM_DOMAIN.toUpperCase() })
                : raw('GET', `/tls/ask?domain=${host}`, { host: '127.0.0.1' });
            }),
          );
          answers.push(...batch.map((a) => a.status));
        }
        return answers;
      },
      probe,
      100,
    );
    // The viewer answers; the TLS questions of one address are cut by their budget (RATE_LIMIT_TLS_ASK).
    expect(run.result.every((status) => [200, 404, 429].includes(status))).toBe(true);
    expect(run.result.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);
  });
});
