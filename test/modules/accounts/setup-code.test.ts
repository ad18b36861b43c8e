// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { uniquePhone } from '../../helpers/fixtures.ts';
import { type TestServer, startTestServer } from '../../helpers/harness.ts';

/**
 * The first account of a new server: made from the console only with the setup code the server logs
 * at start (or SETUP_CODE), and a server administrator; later sign-ups stay as ALLOW_SIGNUP says.
 */
const fromConsole = { origin: 'http://localhost:80' };
const signUp = (server: TestServer, body: Record<string, unknown>) =>
  server.api.post('/svcuser/console/signup', { phoneNum: uniquePhone(), password: 'long enough pw', ...body }, { headers: fromConsole });
const info = async (server: TestServer) => (await server.api.get('/api/v1.7/server-info')).json().data as Record<string, unknown>;

describe('a server without accounts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('logs the setup code and the console address at start, once the server is up', async () => {
    await server.services.accounts.announceSetup();
    const code = await server.services.accounts.setupCode();
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{4}(-[A-HJKMNP-Z2-9]{4}){3}$/);
    const line = server.logs.find((l) => String(l.msg).includes('no account exists yet'));
    expect(line).toMatchObject({ level: 40, setupUrl: `${server.ctx.config.publicBaseUrl}/console/sign-in?setup=1` });
    expect(String(line?.msg)).toContain(code);
    expect(String(line?.msg)).toContain('rapport user create --admin');
  });

  it('server-info says setup is needed', async () => {
    expect(await info(server)).toMatchObject({ signup: true, setupRequired: true });
  });

  it('refuses the first sign-up without the code or with a wrong one, and writes nothing', async () => {
    for (const body of [{}, { setupCode: 'ABCD-EFGH-JKMN-PQRS' }, { setupCode: '' }, { setupCode: 'x'.repeat(256) }]) {
      const res = await signUp(server, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'setup_code_invalid' });
    }
    expect(await server.ctx.database.db.selectFrom('users').select('id').execute()).toHaveLength(0);
  });

  it('makes the first account with the code (any case, without dashes): a server administrator; then closes', async () => {
    const code = await server.services.accounts.setupCode();
    const res = await signUp(server, { setupCode: ` ${code.replaceAll('-', '').toLowerCase()} ` });
    expect(res.statusCode, res.body).toBe(200);
    const token = res.json().access_token as string;
    expect((await server.api.get('/api/v1.7/admin/me', { token })).json()).toEqual({ status: 1, data: { admin: true } });
    expect(await info(server)).toMatchObject({ signup: false, setupRequired: false });
    const later = await signUp(server, { setupCode: code });
    expect(later.json()).toMatchObject({ error: 'signup_closed' });
    // No warning once an account exists.
    const before = server.logs.length;
    await server.services.accounts.announceSetup();
    expect(server.logs.slice(before).some((l) => String(l.msg).includes('no account exists yet'))).toBe(false);
  });
});

describe('SETUP_CODE and ALLOW_SIGNUP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SETUP_CODE: 'automation-setup-code', ALLOW_SIGNUP: 'true' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('takes the operator-chosen code, does not print it, and keeps sign-up open for later accounts (not administrators)', async () => {
    await server.services.accounts.announceSetup();
    expect(server.rawLogs()).not.toContain('automation-setup-code');
    expect(server.rawLogs()).toContain('(the SETUP_CODE setting)');
    expect((await signUp(server, {})).json()).toMatchObject({ error: 'setup_code_invalid' });
    expect((await signUp(server, { setupCode: 'automation-setup-code' })).statusCode).toBe(200);
    const later = await signUp(server, {});
    expect(later.statusCode).toBe(200);
    const token = later.json().access_token as string;
    expect((await server.api.get('/api/v1.7/admin/me', { token })).json()).toEqual({ status: 1, data: { admin: false } });
  });

  it('refuses a SETUP_CODE too short to be a secret', async () => {
    expect(() => loadConfig({ SETUP_CODE: 'short' })).toThrow(/SETUP_CODE must be 12 to 128 characters/);
  });
});
