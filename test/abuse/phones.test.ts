// lanes: sqlite postgres
/**
 * Phone numbers and regions as a weapon (docs/customers.md "Phone numbers", docs/projects.md): a Sales
 * member or an outsider setting a project's region, hostile region codes, and hostile numbers in
 * create, search, the list's filter and a link's form: every one a clear refusal in the documented
 * shape, never a 5xx, never a half-done write.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseUser, addMember, createProject, readScalar, signUp, useAbuseServer } from './harness.ts';

const ctx = useAbuseServer();
let owner: AbuseUser;
let sales: AbuseUser;
let outsider: AbuseUser;
let appId = '';

async function call(user: AbuseUser, method: string, path: string, body?: unknown, query?: Record<string, string>) {
  const url = new URL(`${ctx.server.base}${path}`);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method,
    headers: { ...user.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { status: number; code?: string; data?: unknown } };
}

/** Numbers nobody should be able to store, or that only a careless parser would read. */
const HOSTILE_NUMBERS = [
  '9'.repeat(33),
  '+'.repeat(20),
  '+44 7911 123456'.repeat(3),
  '+44\u202e7911123456',
  '07911 123456 ext. ' + '9'.repeat(25),
  '1-800-FLOWERS-AND-MORE-WORDS',
  "'; drop table customers; --",
  '(((((((((((((((0)))))))))))))))',
  '\u0000+447911123456',
];

beforeAll(async () => {
  [owner, sales, outsider] = await Promise.all([signUp(ctx.server), signUp(ctx.server), signUp(ctx.server)]);
  appId = (await createProject(ctx.server, owner, 'Phones abuse')).appId;
  await addMember(ctx.server, owner, appId, sales);
  await call(sales, 'POST', `/api/v1.7/user/membership/${appId}/accept`);
  expect((await call(owner, 'POST', `/api/v1.7/app/${appId}`, { region: 'GB' })).body.status).toBe(1);
});

describe('regions and numbers under attack', { timeout: 120_000 }, () => {
  it('a Sales member and an outsider cannot set the region; hostile codes are region_invalid; nothing changes', async () => {
    expect((await call(sales, 'POST', `/api/v1.7/app/${appId}`, { region: 'US' })).status).toBe(403);
    expect((await call(outsider, 'POST', `/api/v1.7/app/${appId}`, { region: 'US' })).status).toBe(403);
    for (const region of ['ZZ', 'G B', 'gb\u0000', 'x'.repeat(16), '🇬🇧', "' or 1=1 --"]) {
      const res = await call(owner, 'POST', `/api/v1.7/app/${appId}`, { region, name: 'Renamed by the attack' });
      expect(res.status, region).toBeLessThan(500);
      expect(res.body.status, region).toBe(0);
    }
    const tooLong = await call(owner, 'POST', `/api/v1.7/app/${appId}`, { region: 'x'.repeat(17) });
    expect(tooLong.status).toBeLessThan(500);
    expect(tooLong.body.status).toBe(0);
    expect(await readScalar(ctx.server, 'select region from apps where id = ?', [appId])).toBe('GB');
    expect(await readScalar(ctx.server, 'select name from apps where id = ?', [appId])).toBe('Phones abuse');
  });

  it('hostile numbers are refused on create and find nobody in search or the filter, without a 5xx or a write', async () => {
    for (const phone of HOSTILE_NUMBERS) {
      const made = await call(sales, 'POST', `/api/v1.7/app/${appId}/member/${sales.id}/customers`, { name: 'Attacker', phone });
      expect(made.status, phone).toBeLessThan(500);
      expect(made.body.status, phone).toBe(0);
      const found = await call(sales, 'GET', `/api/v1.7/app/${appId}/customer/appSearch`, undefined, { condition: phone.slice(0, 64) });
      expect(found.status, phone).toBeLessThan(500);
      const listed = await call(sales, 'GET', `/api/v1.7/app/${appId}/member/all/customers`, undefined, { phone: phone.slice(0, 32) });
      expect(listed.status, phone).toBeLessThan(500);
    }
    expect(Number(await readScalar(ctx.server, 'select count(*) from customers where app_id = ?', [appId]))).toBe(0);
  });
});
