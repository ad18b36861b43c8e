import type { AppContext } from '../../context.ts';
import { randomToken, safeEqual } from '../../lib/secrets.ts';
import { accountsRepository as repo } from './repository.ts';

/** What the console learns before anyone signs in (`GET /api/v1.7/server-info`). */
export interface ServerInfo {
  version: string;
  timeZone: string;
  signup: boolean;
  /** PUBLIC_BASE_URL: the start of every address the server hands out. */
  publicBaseUrl: string;
  /** Those addresses name this machine alone while others can reach it (PUBLIC_BASE_URL unset on 0.0.0.0). */
  publicBaseUrlIsLocal: boolean;
  /** The server sends e-mail (SMTP_URL is set): campaigns, codes, invitations. */
  mail: boolean;
  /** No account exists yet: the first sign-up must give the setup code the server logged at start (or SETUP_CODE). */
  setupRequired: boolean;
}

/** The setup code's letters: no 0/O, 1/I/L, so that it reads back from a log without doubt. */
const SETUP_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** The setup code's row in server_secrets: made once, by whichever process asks first. */
const SETUP_CODE_SECRET = 'setup-code';

/** A new setup code: 16 letters of SETUP_ALPHABET (about 79 bits) in groups of four. */
function newSetupCode(): string {
  const bytes = Buffer.from(randomToken(16), 'base64url');
  const letters = [...bytes].map((b) => SETUP_ALPHABET[b % SETUP_ALPHABET.length]).join('');
  return (letters.match(/.{4}/g) ?? []).join('-');
}

/** A setup code as typed: case, spaces and dashes do not matter. */
const normalized = (code: string) => code.replace(/[\s-]+/g, '').toUpperCase();

/**
 * The server's side of accounts, for the operator's and the server's own callers: the server's
 * secrets, the maintenance job's pruning, and what the console learns before anyone signs in.
 */
export function createAccountsAdmin(ctx: AppContext) {
  const db = ctx.database.db;
  // The server's own secrets, by name: made once by whichever process asks first, kept in the database
  // so that every process and every server signs and checks alike.
  const secrets = new Map<string, Promise<Buffer>>();

  /** Whether the console may sign someone up: ALLOW_SIGNUP, or no user exists yet (the first run, with the setup code). */
  async function signupOpen(): Promise<boolean> {
    return ctx.config.allowSignup || !(await repo.anyUser(db));
  }

  /** The first account's setup code: SETUP_CODE, else the one made once and kept with the server's secrets. */
  function setupCode(): Promise<string> {
    if (ctx.config.setupCode !== undefined) return Promise.resolve(ctx.config.setupCode);
    return repo.serverSecret(db, SETUP_CODE_SECRET, newSetupCode(), ctx.clock.now());
  }

  return {
    /** The server's secret of this name (random, made once, shared by every process through the database). */
    serverSecret(name: string): Promise<Buffer> {
      let secret = secrets.get(name);
      if (secret === undefined) {
        secret = repo.serverSecret(db, name, randomToken(32), ctx.clock.now()).then((value) => Buffer.from(value, 'base64url'));
        secret.catch(() => secrets.delete(name));
        secrets.set(name, secret);
      }
      return secret;
    },

    signupOpen,
    setupCode,

    /** Whether `given` is the setup code (compared in constant time, whatever its case, spaces and dashes). */
    async setupCodeMatches(given: string | undefined): Promise<boolean> {
      if (given === undefined || given.length > 256) return false;
      return safeEqual(normalized(given), normalized(await setupCode()));
    },

    /**
     * At start: while no account exists, the setup code and where to use it, in a warning of the log
     * (the operator's only way to it, besides SETUP_CODE and `rapport user create --admin`).
     */
    async announceSetup(): Promise<void> {
      if (await repo.anyUser(db)) return;
      const code = await setupCode();
      const url = `${ctx.config.publicBaseUrl}/console/sign-in?setup=1`;
      const shown = ctx.config.setupCode !== undefined ? '(the SETUP_CODE setting)' : code;
      ctx.logger.warn(
        { setupUrl: url },
        `no account exists yet: open ${url} and create the first account with the setup code ${shown}, or run \`rapport user create --admin\``,
      );
    },

    /** What the console asks before it signs anyone in. */
    async serverInfo(version: string): Promise<ServerInfo> {
      const { timeZone, publicBaseUrl, publicBaseUrlIsLocal } = ctx.config;
      const setupRequired = !(await repo.anyUser(db));
      const signup = ctx.config.allowSignup || setupRequired;
      return { version, timeZone, signup, publicBaseUrl, publicBaseUrlIsLocal, mail: ctx.config.smtpUrl !== undefined, setupRequired };
    },

    /** Deletes expired tokens and codes and failed log-ins older than the throttle window; returns how many. */
    pruneExpired(): Promise<number> {
      return repo.pruneExpired(db, ctx.clock.now());
    },
  };
}

export type AccountsAdmin = ReturnType<typeof createAccountsAdmin>;
