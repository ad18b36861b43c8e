/**
 * The accounts module's token, profile and code services on their own: a fresh SQLite database in a
 * temporary folder, the fake clock, and a code sender that keeps what it is asked to send.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { NO_OBSERVER, type AppContext } from '../../../src/context.ts';
import { type DatabaseHandle, createDatabase, migrateToLatest } from '../../../src/db/index.ts';
import type { CodePurpose, CodeSender } from '../../../src/modules/accounts/code-sender.ts';
import { ACCESS_TOKEN_TTL, createAccountsBase } from '../../../src/modules/accounts/service.ts';
import { createCodesService } from '../../../src/modules/accounts/codes.service.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

class KeptCodes implements CodeSender {
  readonly sent: { to: { phoneNum?: string; email?: string }; code: string; purpose: CodePurpose }[] = [];
  async send(to: { phoneNum?: string; email?: string }, code: string, purpose: CodePurpose): Promise<void> {
    this.sent.push({ to, code, purpose });
  }
}

let dir: string;
let database: DatabaseHandle;
let clock: FakeClock;
let codes: KeptCodes;
let ctx: AppContext;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-accounts-'));
  database = createDatabase({ databaseUrl: undefined, dataDir: dir });
  await migrateToLatest(database.db, database.features.name);
  clock = new FakeClock();
  codes = new KeptCodes();
  const config = loadConfig({ DATA_DIR: dir, RAPPORT_INSECURE_FAST_HASH: '1' });
  ctx = { config, database, clock, logger: pino({ level: 'silent' }), codeSender: codes, observer: NO_OBSERVER } as unknown as AppContext;
});

afterEach(async () => {
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function aUser(phone = '13800000001', status = 1): Promise<number> {
  const now = clock.now();
  const row = await database.db
    .insertInto('users')
    .values({
      phone_num: phone,
      email: null,
      email_lower: null,
      password_hash: 'x',
      name: 'Ann',
      email_status: 0,
      phone_num_status: 0,
      photo_uri: null,
      openid: null,
      unionid: null,
      sex: null,
      city: null,
      province: null,
      company: null,
      position: null,
      industry: null,
      cc_num: 12345678,
      status,
      channel: null,
      weixin_nickname: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const lastSeen = async (userId: number) =>
  (await database.db.selectFrom('user_presence').select('last_seen_at').where('user_id', '=', userId).executeTakeFirst())?.last_seen_at;

describe('tokens service', () => {
  it('resolves an access token to its user until the token expires by the clock', async () => {
    const { tokens } = createAccountsBase(ctx, async () => 0);
    const userId = await aUser();
    const issued = await tokens.issue(userId, 'partner', true);
    expect(issued).toMatchObject({ token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL });
    expect(issued.refresh_token).toEqual(expect.any(String));
    expect((await tokens.authenticate(issued.access_token)).id).toBe(userId);
    await clock.advance(ACCESS_TOKEN_TTL * 1000);
    await expect(tokens.authenticate(issued.access_token)).rejects.toMatchObject({ code: 'access_denied' });
    await expect(tokens.authenticate('')).rejects.toMatchObject({ code: 'access_denied', message: 'Bearer token not found' });
  });

  it('notes presence at most once a minute per user', async () => {
    const { tokens } = createAccountsBase(ctx, async () => 0);
    const userId = await aUser();
    const { access_token } = await tokens.issue(userId, 'partner', false);
    const first = clock.now();
    await tokens.authenticate(access_token);
    expect(Number(await lastSeen(userId))).toBe(first);
    await clock.advance(30_000);
    await tokens.authenticate(access_token);
    expect(Number(await lastSeen(userId))).toBe(first);
    await clock.advance(31_000);
    await tokens.authenticate(access_token);
    expect(Number(await lastSeen(userId))).toBe(first + 61_000);
  });

  it('drops the tokens of a revoked client only, in the given transaction', async () => {
    const { tokens } = createAccountsBase(ctx, async () => 0);
    const userId = await aUser();
    const gone = await tokens.issue(userId, 'revoked-client', true);
    const kept = await tokens.issue(userId, 'other-client', true);
    await database.db.transaction().execute((trx) => tokens.dropClientTokens(trx, 'revoked-client'));
    await expect(tokens.authenticate(gone.access_token)).rejects.toMatchObject({ code: 'access_denied' });
    expect((await tokens.authenticate(kept.access_token)).id).toBe(userId);
  });

  it('names the user in a member pass while it lasts, and not once it expires or the account is disabled', async () => {
    const { tokens } = createAccountsBase(ctx, async () => 0);
    const userId = await aUser();
    const { access_token } = await tokens.issue(userId, 'console', false);
    const pass = await tokens.memberPass(access_token, 60);
    expect(await tokens.userOfMemberPass(pass)).toBe(userId);
    expect(await tokens.userOfMemberPass(`${pass}x`)).toBeNull();
    await clock.advance(61_000);
    expect(await tokens.userOfMemberPass(pass)).toBeNull();
    const disabled = await aUser('13800000002', 2);
    const other = await tokens.issue(disabled, 'console', false);
    // A disabled account's token still authenticates (assertActive refuses it), but its pass names nobody.
    const disabledPass = await tokens.memberPass(other.access_token, 60);
    expect(await tokens.userOfMemberPass(disabledPass)).toBeNull();
    expect(() => tokens.assertActive({ id: disabled, status: 2 })).toThrow('account disabled');
  });
});

describe('profile service', () => {
  it("answers the user object with the Sales count it is given, and updates the caller's own profile", async () => {
    const { profile } = createAccountsBase(ctx, async (userId) => userId * 10);
    const userId = await aUser();
    const user = await profile.userById(userId);
    if (user === undefined) throw new Error('no user');
    expect(await profile.toResponse(user)).toMatchObject({ id: userId, salesCount: userId * 10, password: null, personInfoStatus: 0 });
    await clock.advance(5_000);
    const updated = await profile.updateUser(user, { name: ' Anna ', email: 'Anna@Example.com' });
    expect(updated).toMatchObject({ name: 'Anna', email: 'Anna@Example.com', emailStatus: 0, updatedAt: clock.format(clock.now()) });
    await expect(profile.updateUser(user, { user_id: userId + 1 })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(profile.updateUser(user, { sex: 3 })).rejects.toMatchObject({ code: 'sex_invalid' });
  });
});

describe('codes service', () => {
  const live = async () => 'console';

  it('sends a registration code, refuses another within the minute, and lets the code be used once before it expires', async () => {
    const service = createCodesService(ctx, live);
    expect(await service.issueVerificationCode({ email: 'Bo@Example.com' })).toEqual({ expires_in: 600 });
    expect(codes.sent).toEqual([{ to: { email: 'Bo@Example.com' }, code: expect.stringMatching(/^\d{6}$/), purpose: 'register' }]);
    await clock.advance(30_000);
    await expect(service.issueVerificationCode({ email: 'bo@example.com' })).rejects.toMatchObject({
      code: 'too_many_requests',
      retryAfter: 30,
    });
    await clock.advance(30_000);
    await service.issueVerificationCode({ email: 'bo@example.com' });
    const code = codes.sent[1]?.code ?? '';
    await expect(service.useRegisterCode({ email: 'bo@example.com' }, '000000' === code ? '111111' : '000000')).rejects.toMatchObject({
      code: 'code_not_correct',
    });
    await service.useRegisterCode({ email: 'BO@example.com' }, code);
    await expect(service.useRegisterCode({ email: 'bo@example.com' }, code)).rejects.toMatchObject({ code: 'code_not_correct' });
  });

  it('refuses a code once ten minutes have passed', async () => {
    const service = createCodesService(ctx, live);
    await service.issueVerificationCode({ phoneNum: '13800000009' });
    const code = codes.sent[0]?.code ?? '';
    await clock.advance(10 * 60 * 1000);
    await expect(service.useRegisterCode({ phoneNum: '13800000009' }, code)).rejects.toMatchObject({ code: 'code_not_correct' });
  });

  it("answers a reset code alike for an unknown account, and sends only an existing account's", async () => {
    const service = createCodesService(ctx, live);
    await aUser();
    expect(await service.consolePasswordCode('13800000005')).toEqual({ expires_in: 600 });
    expect(await service.consolePasswordCode('13800000001')).toEqual({ expires_in: 600 });
    await clock.advance(0);
    expect(codes.sent.map((s) => s.to)).toEqual([{ phoneNum: '13800000001' }]);
  });
});
