import type { AppContext } from '../../context.ts';
import { randomToken } from '../../lib/secrets.ts';
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
}

/**
 * The server's side of accounts, for the operator's and the server's own callers: the server's
 * secrets, the maintenance job's pruning, and what the console learns before anyone signs in.
 */
export function createAccountsAdmin(ctx: AppContext) {
  const db = ctx.database.db;
  // The server's own secrets, by name: made once by whichever process asks first, kept in the database
  // so that every process and every server signs and checks alike.
  const secrets = new Map<string, Promise<Buffer>>();

  /** Whether the console may sign someone up: ALLOW_SIGNUP, or no user exists yet (the first run). */
  async function signupOpen(): Promise<boolean> {
    return ctx.config.allowSignup || !(await repo.anyUser(db));
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

    /** What the console asks before it signs anyone in. */
    async serverInfo(version: string): Promise<ServerInfo> {
      const { timeZone, publicBaseUrl, publicBaseUrlIsLocal } = ctx.config;
      return { version, timeZone, signup: await signupOpen(), publicBaseUrl, publicBaseUrlIsLocal, mail: ctx.config.smtpUrl !== undefined };
    },

    /** Deletes expired tokens and codes and failed log-ins older than the throttle window; returns how many. */
    pruneExpired(): Promise<number> {
      return repo.pruneExpired(db, ctx.clock.now());
    },
  };
}

export type AccountsAdmin = ReturnType<typeof createAccountsAdmin>;
