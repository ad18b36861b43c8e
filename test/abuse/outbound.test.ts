// lanes: sqlite
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import { PRIVATE_TARGETS, loopbackForms, startTripwire } from '../helpers/ssrf-forms.ts';
import { storedWebhookRow } from '../helpers/webhooks.ts';
import { type AbuseServer, type AbuseUser, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

/**
 * Server-side request forgery through webhooks, against `npm start` with WEBHOOK_ALLOW_PRIVATE off:
 * every way of spelling a loopback or private address, at registration, at the test delivery and at
 * the relay's deliveries, while a loopback listener of the test's counts every connection it gets.
 */
const s = useAbuseServer();
let tripwire: Awaited<ReturnType<typeof startTripwire>>;

beforeAll(async () => {
  tripwire = await startTripwire();
});
afterAll(async () => {
  await tripwire?.close();
});

async function call(server: AbuseServer, user: AbuseUser, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: body === undefined ? user.auth : { ...user.auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as { status: number; code?: string; data?: unknown };
}

/** Webhooks written to the database behind the registration check (as if stored before it existed, or under another setting). */
async function storeHooks(server: AbuseServer, appId: string, createdBy: number, urls: string[]): Promise<string[]> {
  const database = createDatabase({ databaseUrl: server.env.DATABASE_URL, dataDir: server.env.DATA_DIR ?? '' });
  try {
    const rows = urls.map((url, i) => storedWebhookRow(appId, createdBy, `ssrf-${i}`, url));
    await database.db.insertInto('webhooks').values(rows).execute();
    return rows.map((r) => r.id);
  } finally {
    await database.close();
  }
}

describe('webhook SSRF', () => {
  it('no address form reaches a loopback listener: refused at registration, at the test delivery and at every delivery', async () => {
    const server = s.server;
    const attacker = await signUp(server);
    const { appId } = await createProject(server, attacker, 'Port scanner');
    const victim = await signUp(server);
    const theirs = await createProject(server, victim, 'Victim');
    const made = await call(server, victim, 'POST', `/api/v1.7/app/${theirs.appId}/member/${victim.id}/customers`, {
      name: 'Victim customer',
      email: 'victim.customer@example.com',
    });
    expect(made.status).toBe(1);
    const list = `/api/v1.7/app/${theirs.appId}/member/all/customers`;
    const before = await call(server, victim, 'GET', list);
    const forms = loopbackForms(tripwire.port);

    const attack = await underAttack(
      server,
      async () => {
        for (const url of [...forms, ...PRIVATE_TARGETS]) {
          expect(await call(server, attacker, 'POST', `/api/v1.7/app/${appId}/webhooks`, { url }), url).toMatchObject({
            status: 0,
            code: 'url_invalid',
          });
        }
        const stored = await storeHooks(server, appId, attacker.id, forms);
        for (const [i, id] of stored.entries()) {
          const tested = await call(server, attacker, 'POST', `/api/v1.7/app/${appId}/webhooks/${id}/test`);
          expect(tested, forms[i]).toMatchObject({
            status: 1,
            data: { ok: false, status: null, error: expect.stringContaining('non-public') },
          });
        }
        return stored;
      },
      () => fetch(`${server.base}${list}`, { headers: victim.auth }),
    );

    const ids = attack.result;
    // An event of the project: the relay tries every stored webhook, and each attempt is refused. (Outside the
    // latency measurement: an attacker cannot store these over HTTP, and on SQLite each failed delivery's
    // bookkeeping is a synchronous write, whatever its target.)
    expect((await call(server, attacker, 'POST', `/api/v1.7/app/${appId}/member/${attacker.id}/customers`, { name: 'x' })).status).toBe(1);
    const deadline = Date.now() + 20_000;
    for (const [i, id] of ids.entries()) {
      for (;;) {
        const log = (await call(server, attacker, 'GET', `/api/v1.7/app/${appId}/webhooks/${id}/deliveries`)).data as {
          lastError: string | null;
        }[];
        if (log.length > 0 && log[0]?.lastError !== null) {
          expect(log[0]?.lastError, forms[i]).toContain('non-public');
          break;
        }
        if (Date.now() > deadline) throw new Error(`no delivery attempt for ${forms[i]}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    console.info(
      `${forms.length + PRIVATE_TARGETS.length} URLs refused, ${forms.length} stored ones never connected; another user's slowest answer ${Math.round(attack.worstMs)} ms`,
    );
    expect(server.alive()).toBe(true);
    expect(tripwire.connections()).toBe(0);
    expect(tripwire.bytes()).toBe(0);
    expect(attack.worstMs).toBeLessThan(1000);
    expect(await call(server, victim, 'GET', list)).toEqual(before);
  });
});
