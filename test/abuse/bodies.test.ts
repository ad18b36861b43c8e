// lanes: sqlite
/**
 * Bodies as a weapon: floods of multipart text fields by a non-member and by a member of the
 * project, a body far over its route's limit read by a Node client, and a crowd racing for the
 * first account of a new server (docs/operations.md "Body sizes").
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { type AbuseServer, type AbuseUser, abusePhone, addMember, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

const MB = 1024 * 1024;

/** A run's figures, in the test output. */
const figures = (what: string, run: { peakRssMb: number; worstMs: number; probes: number }) =>
  console.info(`${what}: peak RSS ${Math.round(run.peakRssMb)} MB, slowest of ${run.probes} probes ${Math.round(run.worstMs)} ms`);

interface Flooded {
  /** The status the server answered with, when the answer could be read. */
  status?: number;
  body: string;
  /** Body bytes the client had written when the answer (or the reset) came. */
  sentBytes: number;
  totalBytes: number;
}

/**
 * A multipart body of `fields` text fields of `fieldBytes` each, written as fast as the server
 * takes it (one buffer reused, so the test holds no copy of the body), with its Content-Length.
 */
function multipartFlood(url: string, token: string, fields: number, fieldBytes: number): Promise<Flooded> {
  const boundary = 'floodfloodflood';
  const value = Buffer.alloc(fieldBytes, 'a');
  const head = (i: number) => Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="f${i}"\r\n\r\n`);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  let total = tail.length;
  for (let i = 0; i < fields; i += 1) total += head(i).length + fieldBytes + 2;
  return new Promise((resolve) => {
    const out: Flooded = { body: '', sentBytes: 0, totalBytes: total };
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(out);
    };
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(total),
      },
    });
    req.on('response', (res) => {
      out.status = res.statusCode;
      res.on('data', (d: Buffer) => (out.body += d.toString()));
      res.on('end', finish);
      res.on('error', finish);
    });
    req.on('error', finish);
    req.on('close', () => setTimeout(finish, 200));
    let i = 0;
    const write = () => {
      while (i < fields && !settled) {
        const chunk = Buffer.concat([head(i), value, Buffer.from('\r\n')]);
        i += 1;
        out.sentBytes += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!settled) req.end(tail);
    };
    write();
  });
}

/** `attack` `n` times one after another, its results together. */
async function rounds<T>(n: number, attack: () => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let i = 0; i < n; i += 1) all.push(...(await attack()));
  return all;
}

/** What the owner's project looks like from outside: its detail, members, customers and imports. */
async function snapshot(s: AbuseServer, owner: AbuseUser, appId: string): Promise<string> {
  const paths = [
    `/api/v1.7/app/${appId}`,
    `/api/v1.7/app/${appId}/members`,
    `/api/v1.7/app/${appId}/member/all/customers`,
    `/api/v1.7/app/${appId}/member/${owner.id}/customer-imports`,
  ];
  const bodies = await Promise.all(paths.map(async (p) => (await fetch(`${s.base}${p}`, { headers: owner.auth })).text()));
  return bodies.join('\n');
}

// One server for the file: its first test needs one with no account yet, and its setup code
// (SETUP_CODE: the code an operator would read in the log).
const SETUP_CODE = 'abuse-first-account-setup';
const t = useAbuseServer({ SETUP_CODE });

// First, while the server has no account yet.
describe('the first account of a new server', () => {
  it('needs the setup code, and is made by exactly one of 20 concurrent console sign-ups with it; the others get signup_closed', async () => {
    const s = t.server;
    const headers = { origin: s.base, 'content-type': 'application/json' };
    const phones = Array.from({ length: 20 }, () => abusePhone());
    // The console's first call makes its OAuth client: done before the race, which is about the account.
    const warm = await fetch(`${s.base}/svcuser/console/password-code`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username: abusePhone() }),
    });
    expect(warm.status).toBe(200);
    // Without the setup code, or with a guess, nobody makes it.
    for (const setupCode of [undefined, 'abuse-first-account-setuq', SETUP_CODE.toUpperCase().slice(1)]) {
      const res = await fetch(`${s.base}/svcuser/console/signup`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ phoneNum: abusePhone(), password: 'long enough pw', setupCode }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'setup_code_invalid' });
    }
    const run = await underAttack(
      s,
      () =>
        Promise.all(
          phones.map(async (phoneNum) => {
            const res = await fetch(`${s.base}/svcuser/console/signup`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ phoneNum, password: 'long enough pw', setupCode: SETUP_CODE }),
            });
            return { phoneNum, status: res.status, body: (await res.json()) as { error?: string } };
          }),
        ),
      () => fetch(`${s.base}/api/v1.7/server-info`),
    );
    const made = run.result.filter((r) => r.status === 200);
    expect(made).toHaveLength(1);
    for (const r of run.result.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('signup_closed');
    }
    // Only the one account exists: every other number is still free to register.
    for (const r of run.result) {
      const reg = await fetch(`${s.base}/svcuser/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: s.basic },
        body: `phoneNum=${r.phoneNum}&password=long+enough+pw`,
      });
      if (r.status === 200) expect(await reg.json()).toMatchObject({ error: 'phone_num_existed' });
      else expect(reg.status).toBe(200);
    }
    const info = (await (await fetch(`${s.base}/api/v1.7/server-info`)).json()) as { data: { signup: boolean } };
    expect(info.data.signup).toBe(false);
    figures('first sign-ups', run);
    expect(s.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
  });
});

describe('bodies under attack', () => {
  it("refuses a non-member's three parallel 200 × 1 MB multipart floods to the import preview before parsing them", async () => {
    const s = t.server;
    const owner = await signUp(s);
    const attacker = await signUp(s);
    const { appId } = await createProject(s, owner, 'Victim');
    const before = await snapshot(s, owner, appId);
    const url = `${s.base}/api/v1.7/app/${appId}/customer-import/preview`;

    const run = await underAttack(
      s,
      () => rounds(3, () => Promise.all([0, 1, 2].map(() => multipartFlood(url, attacker.token, 200, MB)))),
      () => fetch(`${s.base}/api/v1.7/app/${appId}/members`, { headers: owner.auth }),
    );
    for (const flood of run.result) {
      // Refused on its headers: the answer (or the cut-off connection) came long before the body was sent.
      expect(flood.sentBytes).toBeLessThan(flood.totalBytes / 2);
      if (flood.status !== undefined) {
        expect(flood.status).toBe(403);
        expect(JSON.parse(flood.body)).toMatchObject({ error: 'forbidden' });
      }
    }
    // A smaller one (under 64 MB) is read and dropped unparsed, so that its sender can read the refusal.
    const small = await multipartFlood(url, attacker.token, 20, MB);
    expect(small.status).toBe(403);
    expect(JSON.parse(small.body)).toMatchObject({ error: 'forbidden' });
    figures('non-member floods', run);
    expect(s.alive()).toBe(true);
    expect(run.peakRssMb).toBeLessThan(400);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await snapshot(s, owner, appId)).toBe(before);
  });

  it("holds a member's floods of text fields to the preview's few small fields (413), without the memory they would take", async () => {
    const s = t.server;
    const owner = await signUp(s);
    const member = await signUp(s);
    const { appId } = await createProject(s, owner, 'Members flood');
    await addMember(s, owner, appId, member);
    const before = await snapshot(s, owner, appId);
    const url = `${s.base}/api/v1.7/app/${appId}/customer-import/preview`;

    const run = await underAttack(
      s,
      () => rounds(3, () => Promise.all([0, 1, 2].map(() => multipartFlood(url, member.token, 200, MB)))),
      () => fetch(`${s.base}/api/v1.7/app/${appId}/members`, { headers: owner.auth }),
    );
    for (const flood of run.result) {
      expect(flood.sentBytes).toBeLessThan(flood.totalBytes / 2);
      if (flood.status !== undefined) expect(flood.status).toBe(413);
    }
    // Under 64 MB the answer is read whole: a few long fields are refused by their size.
    const small = await multipartFlood(url, member.token, 3, 2 * MB);
    expect(small.status).toBe(413);
    expect(JSON.parse(small.body)).toMatchObject({ status: 0, code: 'payload_too_large' });
    figures('member floods', run);
    expect(s.alive()).toBe(true);
    expect(run.peakRssMb).toBeLessThan(400);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await snapshot(s, owner, appId)).toBe(before);
  });

  it('answers a 12 MB JSON body to a 1 MiB route with a 413 a Node fetch reads, with or without Content-Length', async () => {
    const s = t.server;
    const owner = await signUp(s);
    const { appId } = await createProject(s, owner, 'Big bodies');
    const before = await snapshot(s, owner, appId);
    const url = `${s.base}/api/v1.7/app/${appId}/member/${owner.id}/customers`;
    // Made before the attack, so that the client's own work does not slow the probe it shares a process with.
    const big = Buffer.from(JSON.stringify({ name: 'Big', notes: 'x'.repeat(12 * MB) }));
    const pieces = Array.from({ length: Math.ceil(big.length / MB) }, (_, i) => big.subarray(i * MB, (i + 1) * MB));
    const headers = { ...owner.auth, 'content-type': 'application/json' };

    const run = await underAttack(
      s,
      async () => {
        const sized = await fetch(url, { method: 'POST', headers, body: big });
        const chunked = await fetch(url, {
          method: 'POST',
          headers,
          duplex: 'half',
          body: new ReadableStream({
            start(controller) {
              for (const piece of pieces) controller.enqueue(piece);
              controller.close();
            },
          }),
        } as RequestInit);
        return [sized, chunked];
      },
      () => fetch(`${s.base}/api/v1.7/my-apps`, { headers: owner.auth }),
    );
    for (const res of run.result) {
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      expect(await res.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
    }
    figures('12 MB JSON', run);
    expect(s.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await snapshot(s, owner, appId)).toBe(before);
  });
});
