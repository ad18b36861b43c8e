// lanes: sqlite postgres main-thread-reads
/**
 * The in-process token and membership caches (ADR 0005) never outlive a committed change, whoever
 * made it: this server, or another process writing the same database (a second worker, the CLI),
 * here played by a second connection. On SQLite another process's commit is seen within a
 * millisecond (data_version + the change counters); on PostgreSQL it arrives by NOTIFY.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, createDatabase } from '../../src/db/index.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { type TestClient, type TestUser, activeUser, createClient, registerUser } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';

const t = useTestServer();

/** A second connection to the server's database, as another process would open it. */
function otherProcess(): DatabaseHandle {
  return createDatabase(t.server.ctx.config);
}

/** Calls until `check` holds: within a millisecond on SQLite, a NOTIFY's delay on PostgreSQL. */
async function eventually(
  call: () => Promise<{ statusCode: number; body: string }>,
  check: (r: { statusCode: number; body: string }) => boolean,
) {
  const deadline = Date.now() + (TEST_DIALECT === 'sqlite' ? 100 : 3000);
  for (;;) {
    const r = await call();
    if (check(r) || Date.now() >= deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('caches follow commits made elsewhere', () => {
  let client: TestClient;
  let owner: TestUser;
  let appId: string;

  async function setup() {
    client ??= await createClient(t.server);
    owner = await activeUser(t.server, client);
    const created = await t.server.api.post('/api/v1.7/apps', { name: 'Cache' }, { token: owner.token });
    appId = (created.json() as { data: { appId: string } }).data.appId;
  }

  it('a token deleted by another process is refused', async () => {
    await setup();
    const info = () => t.server.api.get('/svcuser/oauth2/getUserInfoByAccessToken', { token: owner.token });
    expect((await info()).statusCode).toBe(200);
    expect((await info()).statusCode).toBe(200); // now served from the cache
    const other = otherProcess();
    try {
      await other.db.deleteFrom('access_tokens').where('user_id', '=', owner.id).execute();
    } finally {
      await other.close();
    }
    const r = await eventually(info, (x) => x.statusCode === 403);
    expect(r.statusCode).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'access_denied' });
  });

  it('a user disabled by another process is refused', async () => {
    await setup();
    const detail = () => t.server.api.get(`/api/v1.7/app/${appId}`, { token: owner.token });
    expect(JSON.parse((await detail()).body)).toMatchObject({ status: 1 });
    const other = otherProcess();
    try {
      await other.db.updateTable('users').set({ status: 2 }).where('id', '=', owner.id).execute();
    } finally {
      await other.close();
    }
    const r = await eventually(detail, (x) => x.statusCode === 403);
    expect(r.statusCode).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'forbidden' });
  });

  it('a member removed, and a project deleted, by another process lose access', async () => {
    await setup();
    const sales = await activeUser(t.server, client);
    await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: owner.token });
    const asSales = () => t.server.api.get(`/api/v1.7/app/${appId}`, { token: sales.token });
    expect(JSON.parse((await asSales()).body)).toMatchObject({ status: 1 });
    expect(JSON.parse((await asSales()).body)).toMatchObject({ status: 1 });
    const other = otherProcess();
    try {
      await other.db.updateTable('members').set({ status: 1 }).where('app_id', '=', appId).where('user_id', '=', sales.id).execute();
      const r = await eventually(asSales, (x) => x.statusCode === 403);
      expect(r.statusCode).toBe(403);

      const asOwner = () => t.server.api.get(`/api/v1.7/app/${appId}`, { token: owner.token });
      expect(JSON.parse((await asOwner()).body)).toMatchObject({ status: 1 });
      await other.db.updateTable('apps').set({ status: 1 }).where('id', '=', appId).execute();
      const gone = await eventually(asOwner, (x) => x.body.includes('app_not_found'));
      expect(JSON.parse(gone.body)).toMatchObject({ status: 0, code: 'app_not_found' });
    } finally {
      await other.close();
    }
  });

  it("recording a user's presence does not empty the access caches", async () => {
    client ??= await createClient(t.server);
    const { tokens } = await registerUser(t.server, client);
    const accessEpoch = async () =>
      (await sql<{ n: number }>`select n from change_epoch where topic = 'access'`.execute(t.server.ctx.database.db)).rows[0]?.n;
    const before = TEST_DIALECT === 'sqlite' ? await accessEpoch() : undefined;
    // The user's first authenticated request records its presence.
    const info = await t.server.api.get('/svcuser/oauth2/getUserInfoByAccessToken', { token: tokens.access_token });
    expect(info.statusCode).toBe(200);
    const id = (info.json() as { id: number }).id;
    const seen = await t.server.ctx.database.db
      .selectFrom('user_presence')
      .select('last_seen_at')
      .where('user_id', '=', id)
      .executeTakeFirst();
    expect(seen?.last_seen_at).toBeGreaterThan(Date.now() - 60_000);
    // SQLite keeps the epochs as counters (PostgreSQL notifies): the access one did not move.
    if (TEST_DIALECT === 'sqlite') expect(await accessEpoch()).toBe(before);
  });

  it('a change made through this server is seen by its very next request', async () => {
    await setup();
    const sales = await activeUser(t.server, client);
    const add = await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: owner.token });
    const memberId = (add.json() as { data: { id: string } }).data.id;
    for (let i = 0; i < 3; i++)
      expect(JSON.parse((await t.server.api.get(`/api/v1.7/app/${appId}`, { token: sales.token })).body).status).toBe(1);
    await t.server.api.post(`/api/v1.7/app/${appId}/member/${memberId}`, {}, { token: owner.token });
    expect((await t.server.api.get(`/api/v1.7/app/${appId}`, { token: sales.token })).statusCode).toBe(403);
  });
});
