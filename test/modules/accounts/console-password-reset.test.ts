// lanes: sqlite postgres
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { activeUser, createClient, type TestClient, uniquePhone } from '../../helpers/fixtures.ts';
import { type TestServer, startTestServer, useTestServer } from '../../helpers/harness.ts';
import { startMailbox } from '../../helpers/mailbox.ts';

/**
 * The console's forgotten password (docs/accounts.md): a reset code by the verification-code
 * sender, then the code and a new password. Codes are read from the log sender here, and from a
 * real SMTP server in the last block.
 */

/** inject's requests go to Host localhost:80. */
const fromConsole = { origin: 'http://localhost:80' };
const t = useTestServer();
let client: TestClient;

beforeAll(async () => {
  client = await createClient(t.server);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const askCode = (username: unknown, headers: Record<string, string> = fromConsole) =>
  t.server.api.post('/svcuser/console/password-code', { username }, { headers });
const reset = (body: Record<string, unknown>, headers: Record<string, string> = fromConsole) =>
  t.server.api.post('/svcuser/console/password-reset', body, { headers });
const signIn = (username: string, password: string) =>
  t.server.api.post('/svcuser/console/session', { username, password }, { headers: fromConsole });

/** The newest code the log sender wrote for `to` and `purpose`. */
function codeFor(to: string, purpose = 'reset'): string | undefined {
  const line = [...t.server.logs].reverse().find((l) => {
    const v = l.verification as { to?: string; purpose?: string } | undefined;
    return v?.to === to && v.purpose === purpose;
  });
  return (line?.verification as { code?: string } | undefined)?.code;
}

/** The code is sent after the answer: wait for it. */
async function waitForCode(to: string, purpose = 'reset', after?: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const code = codeFor(to, purpose);
    if (code !== undefined && code !== after) return code;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no ${purpose} code for ${to}`);
}

const otherThan = (code: string) => (code === '123456' ? '654321' : '123456');

/** Lets a new code be asked for the same target (60 s between codes). */
function laterBy(ms: number) {
  const now = Date.now();
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now + ms);
}

describe('resetting a forgotten password from the console', () => {
  it('sends a code, and the code sets a new password; the old one stops working', async () => {
    const user = await activeUser(t.server, client);
    const issued = await askCode(user.username);
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toEqual({ expires_in: 600 });
    const code = await waitForCode(user.username);
    expect(code).toMatch(/^\d{6}$/);

    const res = await reset({ username: user.username, code, password: 'a brand new password' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await signIn(user.username, user.password)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await signIn(user.username, 'a brand new password')).statusCode).toBe(200);

    // Used once.
    const again = await reset({ username: user.username, code, password: 'yet another password' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'code_not_correct' });
  });

  it('works by e-mail too, whatever its case; the e-mail says what the code is for', async () => {
    const email = `Reset.${uniquePhone()}@Example.com`;
    const user = await activeUser(t.server, client, { email });
    expect((await askCode(email.toUpperCase())).statusCode).toBe(200);
    // Sent to the address as the account has it.
    const code = await waitForCode(email);
    const res = await reset({ username: email.toLowerCase(), code, password: 'mail reset password' });
    expect(res.json()).toEqual({});
    expect((await signIn(user.username, 'mail reset password')).statusCode).toBe(200);
  });

  it('ends every session of the user: access and refresh tokens, of every client, stop working', async () => {
    const user = await activeUser(t.server, client);
    const consoleSession = await signIn(user.username, user.password);
    const consoleAccess = (consoleSession.json() as { access_token: string }).access_token;
    const cookie = String(consoleSession.headers['set-cookie']).split(';')[0] as string;
    expect((await t.server.api.get('/api/v1.7/my-apps', { token: user.token })).statusCode).toBe(200);
    expect((await t.server.api.get('/api/v1.7/my-apps', { token: consoleAccess })).statusCode).toBe(200);

    await askCode(user.username);
    const code = await waitForCode(user.username);
    expect((await reset({ username: user.username, code, password: 'after the reset' })).json()).toEqual({});

    expect((await t.server.api.get('/api/v1.7/my-apps', { token: user.token })).statusCode).toBe(403);
    expect((await t.server.api.get('/api/v1.7/my-apps', { token: consoleAccess })).statusCode).toBe(403);
    const refreshed = await t.server.api.post(
      '/svcuser/oauth2/access_token',
      { grant_type: 'refresh_token', refresh_token: user.refreshToken },
      { form: true, headers: { authorization: client.basic } },
    );
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const consoleRefresh = await t.server.api.post('/svcuser/console/session/refresh', undefined, { headers: { ...fromConsole, cookie } });
    expect(consoleRefresh.json()).toMatchObject({ error: 'invalid_grant' });
    const remaining = await t.server.ctx.database.db
      .selectFrom('refresh_tokens')
      .select('token_hash')
      .where('user_id', '=', user.id)
      .union(t.server.ctx.database.db.selectFrom('access_tokens').select('token_hash').where('user_id', '=', user.id))
      .execute();
    expect(remaining).toEqual([]);
  });

  it('a wrong code is refused and counts; five wrong tries void the code', async () => {
    const user = await activeUser(t.server, client);
    await askCode(user.username);
    const code = await waitForCode(user.username);
    const wrong = await reset({ username: user.username, code: otherThan(code), password: 'never set this' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'code_not_correct', error_description: 'The verification code is incorrect or has expired' });
    for (let i = 0; i < 4; i++) await reset({ username: user.username, code: otherThan(code), password: 'never set this' });
    const right = await reset({ username: user.username, code, password: 'never set this' });
    expect(right.json()).toMatchObject({ error: 'code_not_correct' });
    expect((await signIn(user.username, user.password)).statusCode).toBe(200);

    // A new code (a minute later) works again.
    laterBy(61_000);
    expect((await askCode(user.username)).statusCode).toBe(200);
    const fresh = await waitForCode(user.username, 'reset', code);
    expect((await reset({ username: user.username, code: fresh, password: 'set at last' })).json()).toEqual({});
  });

  it('refuses an expired code', async () => {
    const user = await activeUser(t.server, client);
    await askCode(user.username);
    const code = await waitForCode(user.username);
    laterBy(10 * 60_000 + 1);
    const res = await reset({ username: user.username, code, password: 'too late for this' });
    expect(res.json()).toMatchObject({ error: 'code_not_correct' });
    vi.restoreAllMocks();
    expect((await signIn(user.username, user.password)).statusCode).toBe(200);
  });

  it('a registration code does not reset a password, nor a reset code register', async () => {
    const opts = { form: true, headers: { authorization: client.basic } };
    const user = await activeUser(t.server, client);
    expect((await t.server.api.post('/svcuser/oauth2/verification-code', { phoneNum: user.username }, opts)).statusCode).toBe(200);
    const registration = await waitForCode(user.username, 'register');
    // The two purposes keep codes of their own: asking for one does not wait for the other's minute.
    expect((await askCode(user.username)).statusCode).toBe(200);
    const resetCode = await waitForCode(user.username);
    expect(resetCode).not.toBe(registration); // two random codes: equal once in a million runs
    const res = await reset({ username: user.username, code: registration, password: 'registration code' });
    expect(res.json()).toMatchObject({ error: 'code_not_correct' });

    // A reset code is no registration code (accepted, it would answer phone_num_existed here).
    const other = await activeUser(t.server, client);
    await askCode(other.username);
    const otherReset = await waitForCode(other.username);
    const asRegistration = await t.server.api.post(
      '/svcuser/oauth2/register',
      { phoneNum: other.username, password: 'password one', code: otherReset },
      opts,
    );
    expect(asRegistration.json()).toMatchObject({ error: 'code_not_correct' });
    // Each code is still good for its own purpose (the registration code passes, then the number is taken).
    const registered = await t.server.api.post(
      '/svcuser/oauth2/register',
      { phoneNum: user.username, password: 'password one', code: registration },
      opts,
    );
    expect(registered.json()).toMatchObject({ error: 'phone_num_existed' });
    expect((await reset({ username: user.username, code: resetCode, password: 'reset code works' })).json()).toEqual({});
    expect((await reset({ username: other.username, code: otherReset, password: 'reset code works' })).json()).toEqual({});
  });

  it('answers alike whether or not the account exists, and sends nothing for an unknown one', async () => {
    const user = await activeUser(t.server, client);
    const unknown = uniquePhone();
    const known = await askCode(user.username);
    const nobody = await askCode(unknown);
    const shape = (r: typeof known) => ({
      status: r.statusCode,
      body: r.body,
      headers: Object.keys(r.headers)
        .filter((h) => !['date', 'x-request-id', 'content-length'].includes(h))
        .sort()
        .map((h) => [h, h === 'ratelimit-reset' ? '' : r.headers[h]]),
    });
    expect(shape(nobody)).toEqual(shape(known));
    // The minute between codes holds for both.
    const knownAgain = await askCode(user.username);
    const nobodyAgain = await askCode(unknown);
    expect(knownAgain.statusCode).toBe(429);
    expect(nobodyAgain.statusCode).toBe(429);
    expect(nobodyAgain.json()).toEqual(knownAgain.json());
    await waitForCode(user.username);
    await new Promise((r) => setTimeout(r, 50));
    expect(codeFor(unknown)).toBeUndefined();
    // Resetting an unknown account answers as a wrong code does.
    const wrongKnown = await reset({ username: user.username, code: '000000', password: 'whatever it is' });
    const wrongUnknown = await reset({ username: unknown, code: '000000', password: 'whatever it is' });
    expect(wrongUnknown.statusCode).toBe(wrongKnown.statusCode);
    expect(wrongUnknown.json()).toEqual(wrongKnown.json());
  });

  it('a disabled user gets no code and cannot reset', async () => {
    const user = await activeUser(t.server, client);
    await askCode(user.username);
    const code = await waitForCode(user.username);
    await t.server.ctx.database.db.updateTable('users').set({ status: 2 }).where('id', '=', user.id).execute();
    const res = await reset({ username: user.username, code, password: 'disabled users stay out' });
    expect(res.json()).toMatchObject({ error: 'code_not_correct' });

    laterBy(61_000);
    expect((await askCode(user.username)).json()).toEqual({ expires_in: 600 });
    await new Promise((r) => setTimeout(r, 50));
    expect(codeFor(user.username)).toBe(code);
    await t.server.ctx.database.db.updateTable('users').set({ status: 1 }).where('id', '=', user.id).execute();
    expect((await signIn(user.username, user.password)).statusCode).toBe(200);
  });

  it('refuses calls from another origin, or none, and writes nothing', async () => {
    const user = await activeUser(t.server, client);
    for (const headers of [{}, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
      const asked = await askCode(user.username, headers);
      expect(asked.statusCode).toBe(403);
      expect(asked.json()).toMatchObject({ error: 'forbidden' });
      const res = await reset({ username: user.username, code: '123456', password: 'from elsewhere' }, headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
    const stored = await t.server.ctx.database.db
      .selectFrom('verification_codes')
      .select('target')
      .where('target', '=', `phone:${user.username}`)
      .execute();
    expect(stored).toEqual([]);
  });

  it('answers bad input with invalid_request in the error shape, never a 5xx', async () => {
    const user = await activeUser(t.server, client);
    const bad: [string, Record<string, unknown>][] = [
      ['/svcuser/console/password-code', {}],
      ['/svcuser/console/password-code', { username: '' }],
      ['/svcuser/console/password-code', { username: 'not a name' }],
      ['/svcuser/console/password-code', { username: 'a@b' }],
      ['/svcuser/console/password-code', { username: ['x'] }],
      ['/svcuser/console/password-code', { username: 'x'.repeat(300) }],
      ['/svcuser/console/password-reset', { code: '123456', password: 'long enough pw' }],
      ['/svcuser/console/password-reset', { username: user.username, password: 'long enough pw' }],
      ['/svcuser/console/password-reset', { username: user.username, code: '123456' }],
      ['/svcuser/console/password-reset', { username: user.username, code: '123456', password: 'short' }],
      ['/svcuser/console/password-reset', { username: user.username, code: '123456', password: 'x'.repeat(129) }],
      ['/svcuser/console/password-reset', { username: user.username, code: { a: 1 }, password: 'long enough pw' }],
    ];
    for (const [url, body] of bad) {
      const res = await t.server.api.post(url, body, { headers: fromConsole });
      expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json(), `${url} ${JSON.stringify(body)}`).toMatchObject({ error: 'invalid_request' });
    }
    const notJson = await t.server.api.post('/svcuser/console/password-reset', '{"username":', { headers: fromConsole });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ error: 'invalid_request' });
    // A bad new password does not use up a try of the code.
    await askCode(user.username);
    const code = await waitForCode(user.username);
    for (let i = 0; i < 6; i++) await reset({ username: user.username, code, password: 'short' });
    expect((await reset({ username: user.username, code, password: 'long enough now' })).json()).toEqual({});
  });
});

describe('reset codes by e-mail', () => {
  let box: Awaited<ReturnType<typeof startMailbox>>;
  let server: TestServer;
  beforeAll(async () => {
    box = await startMailbox();
    server = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${box.port}`, SMTP_FROM: 'Rapport <accounts@example.com>' });
  });
  afterAll(async () => {
    await server?.close();
    await box?.close();
  });

  it('mails the code with what it is for; an unknown address gets nothing', async () => {
    const mailClient = await createClient(server);
    const email = `mailed.${uniquePhone()}@example.com`;
    await activeUser(server, mailClient, { email });
    const res = await server.api.post('/svcuser/console/password-code', { username: email }, { headers: fromConsole });
    expect(res.json()).toEqual({ expires_in: 600 });
    const unknown = await server.api.post(
      '/svcuser/console/password-code',
      { username: `nobody.${uniquePhone()}@example.com` },
      { headers: fromConsole },
    );
    expect(unknown.json()).toEqual({ expires_in: 600 });
    const [mail] = await box.waitFor(1);
    expect(mail?.to).toEqual([email]);
    expect(mail?.mail.subject).toBe('Your Rapport password reset code');
    const code = /\b(\d{6})\b/.exec(mail?.mail.text ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    await new Promise((r) => setTimeout(r, 200));
    expect(box.inbox).toHaveLength(1);
    const done = await server.api.post(
      '/svcuser/console/password-reset',
      { username: email, code, password: 'mailed new password' },
      { headers: fromConsole },
    );
    expect(done.json()).toEqual({});
  });
});

describe('rate limits', () => {
  it('count both calls against the address, as the sign-in is', async () => {
    const limited = await startTestServer({ RATE_LIMITS: 'on', RATE_LIMIT_IP: '3' });
    try {
      // A new name each call: the minute between two codes for one name is another matter.
      for (const [url, body] of [
        ['/svcuser/console/session', () => ({ username: uniquePhone(), password: 'long enough pw' })],
        ['/svcuser/console/password-code', () => ({ username: uniquePhone() })],
        ['/svcuser/console/password-reset', () => ({ username: uniquePhone(), code: '123456', password: 'long enough pw' })],
      ] as const) {
        const ip = `192.0.2.${url.length}`;
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await limited.api.post(url, body(), { headers: fromConsole, ip }));
        expect(
          answers.slice(0, 3).map((r) => r.statusCode),
          url,
        ).not.toContain(429);
        expect(answers[3]?.statusCode, url).toBe(429);
        expect(answers[3]?.json(), url).toMatchObject({ error: 'too_many_requests' });
        expect(Number(answers[3]?.headers['retry-after']), url).toBeGreaterThan(0);
      }
    } finally {
      await limited.close();
    }
  });
});
