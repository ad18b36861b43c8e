// lanes: sqlite
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, allPages, collectPages, connect, createRapportClient, unwrap } from '../../packages/sdk/src/index.ts';
import { type TestClient, type TestUser, activeUser, createClient, uniquePhone } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'packages/sdk');
const t = useTestServer();
let base: string;
let client: TestClient;
let user: TestUser;
let appId: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-sdk-'));

beforeAll(async () => {
  // The SDK talks HTTP: the test server listens on a port of its own.
  base = await t.server.app.listen({ port: 0, host: '127.0.0.1' });
  client = await createClient(t.server);
  user = await activeUser(t.server, client);
  const created = await t.server.api.post('/api/v1.7/apps', { name: 'SDK' }, { token: user.token });
  appId = created.json().data.appId as string;
  for (let i = 0; i < 7; i += 1) {
    const res = await t.server.api.post(
      `/api/v1.7/app/${appId}/member/${user.id}/customers`,
      { name: `SDK ${i}`, phone: uniquePhone() },
      { token: user.token },
    );
    expect(res.json().status).toBe(1);
  }
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const login = () => ({
  baseUrl: base,
  clientId: client.client_id,
  clientSecret: client.client_secret,
  username: user.username,
  password: user.password,
});

describe('SDK', () => {
  it("has committed types that are the server's OpenAPI document as openapi-typescript generates it", () => {
    // The document as the SDK's build makes it (the server's build is brought up to date by the suite's global setup).
    const doc = path.join(tmp, 'openapi.json');
    const out = path.join(tmp, 'schema.ts');
    execFileSync(process.execPath, ['scripts/openapi.js', doc], { cwd: ROOT, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), doc, '--output', out], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const committed = fs.readFileSync(path.join(SDK, 'src/schema.ts'), 'utf8');
    // On a difference: `npm run generate -w packages/sdk` regenerates packages/sdk/src/schema.ts; commit it.
    expect(
      committed === fs.readFileSync(out, 'utf8'),
      'packages/sdk/src/schema.ts differs from the server: npm run generate -w packages/sdk',
    ).toBe(true);
  });

  it('logs in with the password grant, calls typed endpoints, pages through a list, and renews its token', async () => {
    const { client: api, session } = await connect({ ...login(), renewAheadSeconds: 8 * 24 * 3600 });
    const first = session.current();
    const project = unwrap(await api.GET('/api/v1.7/app/{appId}', { params: { path: { appId } } }));
    expect(project.name).toBe('SDK');
    // A token that runs out within the renewal margin (here: always) is renewed by the refresh grant before a call.
    expect(session.current()).not.toBe(first);
    const names = await collectPages<{ name: string }>(
      (page) =>
        api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customers', { params: { path: { appId, svcUserId: 'all' }, query: page } }),
      3,
    );
    expect(names.map((c) => c.name).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `SDK ${i}`));
    let n = 0;
    for await (const _ of allPages((page) =>
      api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customers', { params: { path: { appId, svcUserId: 'all' }, query: page } }),
    ))
      n += 1;
    expect(n).toBe(7);
  });

  it('sends a refused call again with a renewed token, and throws business failures as ApiError with their code', async () => {
    let renewals = 0;
    const api = createRapportClient({
      baseUrl: base,
      accessToken: () => (renewals === 0 ? 'not-a-token' : user.token),
      refreshAccessToken: async () => {
        renewals += 1;
        return user.token;
      },
    });
    const project = unwrap(await api.GET('/api/v1.7/app/{appId}', { params: { path: { appId } } }));
    expect(project.name).toBe('SDK');
    expect(renewals).toBe(1);
    const missing = await api.GET('/api/v1.7/customer/{customerId}/detail', { params: { path: { customerId: 'nope' } } });
    expect(() => unwrap(missing)).toThrow(ApiError);
    try {
      unwrap(missing);
    } catch (err) {
      expect((err as ApiError).code).toBe('customer_not_found');
    }
    await expect(connect({ ...login(), password: 'wrong password' })).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('packs into a package that installs and calls a running server', async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', SDK], { cwd: ROOT, stdio: 'inherit' });
    const packed = execFileSync('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: SDK, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop() as string;
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', path.join(tmp, packed)], {
      cwd: app,
      stdio: 'inherit',
    });
    fs.writeFileSync(
      path.join(app, 'main.js'),
      `import { connect, collectPages } from '@rapport/sdk';
const [baseUrl, clientId, clientSecret, username, password, appId] = process.argv.slice(2);
const { client } = await connect({ baseUrl, clientId, clientSecret, username, password });
const customers = await collectPages((page) => client.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customers', { params: { path: { appId, svcUserId: 'all' }, query: page } }));
console.log(JSON.stringify({ count: customers.length }));
`,
    );
    const l = login();
    // Not a synchronous child: the server it calls answers from this process.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['main.js', l.baseUrl, l.clientId, l.clientSecret, l.username, l.password, appId],
      {
        cwd: app,
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(stdout)).toEqual({ count: 7 });
    expect(fs.existsSync(path.join(app, 'node_modules/@rapport/sdk/dist/index.d.ts'))).toBe(true);
  });
});
