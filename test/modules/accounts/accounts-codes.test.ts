// lanes: sqlite postgres
import { describe, expect, it } from 'vitest';
import { createClient, uniquePhone } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

const t = useTestServer({ REQUIRE_VERIFICATION_CODE: 'true' });

function codeFromLogs(logs: Record<string, unknown>[], to: string): string | undefined {
  const line = [...logs].reverse().find((l) => (l.verification as { to?: string } | undefined)?.to === to);
  return (line?.verification as { code?: string } | undefined)?.code;
}

describe('verification codes required for register', () => {
  it('issues a code through the log sender and register accepts it once', async () => {
    const client = await createClient(t.server);
    const opts = { form: true, headers: { authorization: client.basic } };
    const phone = uniquePhone();
    const missing = await t.server.api.post('/svcuser/oauth2/register', { phoneNum: phone, password: 'password1' }, opts);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('code_not_correct');

    const issued = await t.server.api.post('/svcuser/oauth2/verification-code', { phoneNum: phone }, opts);
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toEqual({ expires_in: 600 });
    const code = codeFromLogs(t.server.logs, phone);
    expect(code).toMatch(/^\d{6}$/);

    const again = await t.server.api.post('/svcuser/oauth2/verification-code', { phoneNum: phone }, opts);
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);

    const wrongCode = code === '123456' ? '654321' : '123456';
    const wrong = await t.server.api.post('/svcuser/oauth2/register', { phoneNum: phone, password: 'password1', code: wrongCode }, opts);
    expect(wrong.json().error).toBe('code_not_correct');

    const ok = await t.server.api.post('/svcuser/oauth2/register', { phoneNum: phone, password: 'password1', code }, opts);
    expect(ok.statusCode).toBe(200);

    const reuse = await t.server.api.post('/svcuser/oauth2/register', { phoneNum: uniquePhone(), password: 'password1', code }, opts);
    expect(reuse.json().error).toBe('code_not_correct');
  });

  it('locks a code after five wrong tries', async () => {
    const client = await createClient(t.server);
    const opts = { form: true, headers: { authorization: client.basic } };
    const email = 'lock@example.com';
    await t.server.api.post('/svcuser/oauth2/verification-code', { email }, opts);
    const code = codeFromLogs(t.server.logs, email);
    for (let i = 0; i < 5; i++) {
      await t.server.api.post('/svcuser/oauth2/register', { email, password: 'password1', code: 'xxxxxx' }, opts);
    }
    const res = await t.server.api.post('/svcuser/oauth2/register', { email, password: 'password1', code }, opts);
    expect(res.json().error).toBe('code_not_correct');
  });
});
