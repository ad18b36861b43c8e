import type { AppContext } from '../../context.ts';
import { oauthError, tooManyRequests } from '../../http/errors.ts';
import { INSECURE_FAST_SCRYPT, OWASP_SCRYPT, hashPassword, randomDigits, safeEqual, sha256 } from '../../lib/secrets.ts';
import type { CodePurpose } from './code-sender.ts';
import { type Identifier, blank, codeNotCorrect, codeTarget, identifier, passwordLengthOk, usernameIdentifier } from './identity.ts';
import { accountsRepository as repo } from './repository.ts';

export const CODE_TTL_MS = 10 * 60 * 1000;
const CODE_RESEND_MS = 60 * 1000;
const CODE_MAX_ATTEMPTS = 5;

export interface PasswordResetInput {
  username?: string | undefined;
  code?: string | undefined;
  password?: string | undefined;
}

/**
 * Verification codes and the console's password reset, for the code calls (`verification-code`,
 * `password-code`, `password-reset`) and for sign-up, which checks a registration's code.
 * `consoleClient` refuses when the operator revoked the console's client.
 */
export function createCodesService(ctx: AppContext, consoleClient: () => Promise<string>) {
  const db = ctx.database.db;
  const clock = ctx.clock;
  const cost = ctx.config.insecureFastHash ? INSECURE_FAST_SCRYPT : OWASP_SCRYPT;

  /** Whether `code` is the live code of `target` for `purpose`; every try counts, and a code allows five. */
  async function codeMatches(target: string, purpose: CodePurpose, code: string | undefined): Promise<boolean> {
    const hash = await repo.claimCodeAttempt(db, target, purpose, clock.now(), CODE_MAX_ATTEMPTS);
    return hash !== undefined && code !== undefined && safeEqual(hash, sha256(`${target}:${code.trim()}`));
  }

  /**
   * Stores a new code of `purpose` for `target` and answers it; HTTP 429 when the target was given
   * one less than a minute ago.
   */
  async function storeCode(target: string, purpose: CodePurpose): Promise<string> {
    const now = clock.now();
    const existing = await repo.findVerificationCode(db, target, purpose);
    if (existing && now - existing.created_at < CODE_RESEND_MS) {
      throw tooManyRequests((existing.created_at + CODE_RESEND_MS - now) / 1000, 'A code was sent less than a minute ago');
    }
    const code = randomDigits(6);
    const row = { target, purpose, code_hash: sha256(`${target}:${code}`), expires_at: now + CODE_TTL_MS, created_at: now, attempts: 0 };
    await repo.upsertVerificationCode(db, row);
    return code;
  }

  return {
    /** Uses the registration code of the identifier, or throws code_not_correct. */
    async useRegisterCode(id: Identifier, code: string | undefined): Promise<void> {
      const target = codeTarget(id);
      // Deleted by whoever uses it: of two uses at once, one passes.
      if (!(await codeMatches(target, 'register', code)) || !(await repo.deleteVerificationCode(db, target, 'register'))) {
        throw codeNotCorrect();
      }
    },

    async issueVerificationCode(input: Identifier): Promise<{ expires_in: number }> {
      const id = identifier(input);
      const code = await storeCode(codeTarget(id), 'register');
      await ctx.codeSender.send(id.email ? { email: id.email } : { phoneNum: id.phoneNum ?? '' }, code, 'register');
      return { expires_in: CODE_TTL_MS / 1000 };
    },

    /**
     * The console's "forgot password": a reset code for the account whose mobile number or e-mail
     * `username` is. The answer, and the work before it, are the same whether or not such an account
     * exists (or is disabled): a code is stored for the target either way (so the minute between two
     * codes holds either way), and only an enabled account's is sent, after the answer, so that the
     * time a delivery takes tells nothing either.
     */
    async consolePasswordCode(username: string | undefined): Promise<{ expires_in: number }> {
      await consoleClient();
      const id = usernameIdentifier(username);
      const target = codeTarget(id);
      const user = await repo.findUserByUsername(db, id.email ?? id.phoneNum ?? '');
      const code = await storeCode(target, 'reset');
      if (user !== undefined && user.status !== 2) {
        // To the address on the account, as it was written there.
        const to = id.email ? { email: user.email ?? id.email } : { phoneNum: user.phone_num ?? id.phoneNum ?? '' };
        ctx.codeSender.send(to, code, 'reset').catch((err: unknown) => {
          ctx.logger.error({ err, userId: user.id }, 'the password reset code could not be sent');
        });
      }
      // Otherwise the stored code goes to nobody: no one can use it.
      return { expires_in: CODE_TTL_MS / 1000 };
    },

    /**
     * The console's password reset: the reset code of the account `username` names sets its new
     * password, once. A wrong, used or expired code, an unknown account and a disabled one all answer
     * `code_not_correct`. Every access and refresh token of the user is deleted with the change, so
     * every session of theirs ends; their failed log-ins are forgotten.
     */
    async consolePasswordReset(input: PasswordResetInput): Promise<Record<string, never>> {
      await consoleClient();
      const id = usernameIdentifier(input.username);
      if (blank(input.code)) throw oauthError('invalid_request', 'Missing parameter: code');
      const password = input.password ?? '';
      if (!passwordLengthOk(password)) throw oauthError('invalid_request', 'password must be 8 to 128 characters');
      const target = codeTarget(id);
      if (!(await codeMatches(target, 'reset', input.code))) throw codeNotCorrect();
      const user = await repo.findUserByUsername(db, id.email ?? id.phoneNum ?? '');
      if (user === undefined || user.status === 2) {
        await repo.deleteVerificationCode(db, target, 'reset');
        throw codeNotCorrect();
      }
      const passwordHash = await hashPassword(password, cost);
      const now = clock.now();
      const revoked = await db.transaction().execute(async (trx) => {
        // Used once: of two resets with one code at the same time, only one gets here.
        if (!(await repo.deleteVerificationCode(trx, target, 'reset'))) throw codeNotCorrect();
        await repo.updateUser(trx, user.id, { password_hash: passwordHash, updated_at: now });
        const names = [user.phone_num, user.email_lower].flatMap((name) => (name === null ? [] : [`user:${name.toLowerCase()}`]));
        await repo.clearFailures(trx, names);
        return repo.deleteUserTokens(trx, user.id);
      });
      ctx.logger.info({ userId: user.id, tokensRevoked: revoked }, 'password reset with a verification code');
      return {};
    },
  };
}

export type CodesService = ReturnType<typeof createCodesService>;
