import type { TestServer } from './harness.ts';

export interface TestClient {
  client_id: string;
  client_secret: string;
  basic: string;
}

export interface TestUser {
  id: number;
  username: string;
  password: string;
  token: string;
  refreshToken: string;
}

let counter = 0;
/** A mobile number unique within the process (tests share nothing else). */
export function uniquePhone(): string {
  counter += 1;
  return `139${String(process.pid % 10000).padStart(4, '0')}${String(counter).padStart(4, '0')}`;
}

export async function createClient(server: TestServer, name = 'test client'): Promise<TestClient> {
  const c = await server.services.clients.create(name);
  return { ...c, basic: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` };
}

/** Registers an account (not activated) and returns its register tokens. */
export async function registerUser(server: TestServer, client: TestClient, fields: Record<string, unknown> = {}) {
  const id = fields.email !== undefined ? {} : { phoneNum: uniquePhone() };
  const body: Record<string, unknown> = { ...id, password: 'correct horse', nickname: 'Tester', ...fields };
  const res = await server.api.post('/svcuser/oauth2/register', body, { form: true, headers: { authorization: client.basic } });
  if (res.statusCode !== 200) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  return { body, tokens: res.json() as { access_token: string; refresh_token: string } };
}

/** Registers and logs in (which activates the account). */
export async function activeUser(server: TestServer, client: TestClient, fields: Record<string, unknown> = {}): Promise<TestUser> {
  const { body } = await registerUser(server, client, fields);
  const username = String(body.email ?? body.phoneNum);
  const login = await server.api.post(
    '/svcuser/oauth2/access_token',
    { grant_type: 'password', username, password: body.password },
    { form: true, headers: { authorization: client.basic } },
  );
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const tokens = login.json() as { access_token: string; refresh_token: string };
  const info = await server.api.get('/svcuser/oauth2/getUserInfoByAccessToken', { query: { access_token: tokens.access_token } });
  return {
    id: (info.json() as { id: number }).id,
    username,
    password: String(body.password),
    token: tokens.access_token,
    refreshToken: tokens.refresh_token,
  };
}
