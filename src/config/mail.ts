/** Accounts' tokens and verification codes, and mail: SMTP, the campaign sender's pace, DKIM. */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env, boolSetting, intSetting } from './settings.ts';
import type { Config } from './types.ts';

function dkimSetting(env: Env): Config['mailDkim'] {
  const domainName = env.MAIL_DKIM_DOMAIN || undefined;
  const keySelector = env.MAIL_DKIM_SELECTOR || undefined;
  const keyFile = env.MAIL_DKIM_KEY_FILE || undefined;
  if (domainName === undefined && keySelector === undefined && keyFile === undefined) return undefined;
  if (domainName === undefined || keySelector === undefined || keyFile === undefined) {
    throw new ConfigError('MAIL_DKIM_DOMAIN, MAIL_DKIM_SELECTOR and MAIL_DKIM_KEY_FILE go together: set all three or none');
  }
  let privateKey: string;
  try {
    privateKey = fs.readFileSync(path.resolve(keyFile), 'utf8');
  } catch (e) {
    throw new ConfigError(`MAIL_DKIM_KEY_FILE cannot be read: ${(e as Error).message}`);
  }
  if (!privateKey.includes('PRIVATE KEY')) throw new ConfigError('MAIL_DKIM_KEY_FILE must be a PEM private key');
  return Object.freeze({ domainName, keySelector, privateKey });
}

/** SETUP_CODE: the first account's setup code chosen by the operator (automation), instead of one made at start. */
function setupCodeSetting(env: Env): string | undefined {
  const code = env.SETUP_CODE?.trim() || undefined;
  if (code !== undefined && (code.length < 12 || code.length > 128)) throw new ConfigError('SETUP_CODE must be 12 to 128 characters');
  return code;
}

/** Accounts' tokens and codes, and mail: SMTP, the campaign sender's pace and DKIM. */
export function accountAndMailSettings(env: Env) {
  return {
    refreshTokenTtl: intSetting(env, 'REFRESH_TOKEN_TTL', 30 * 24 * 3600, 60, 10 * 365 * 24 * 3600),
    requireVerificationCode: boolSetting(env, 'REQUIRE_VERIFICATION_CODE', false),
    setupCode: setupCodeSetting(env),
    smtpUrl: env.SMTP_URL || undefined,
    smtpFrom: env.SMTP_FROM || 'Rapport <no-reply@localhost>',
    mailRatePerSecond: intSetting(env, 'MAIL_RATE_PER_SECOND', 50, 1, 10_000),
    mailConnections: intSetting(env, 'MAIL_CONNECTIONS', 5, 1, 100),
    mailSendingStaleSeconds: intSetting(env, 'MAIL_SENDING_STALE_SECONDS', 600, 1, 86_400),
    mailMachineOpenSeconds: intSetting(env, 'MAIL_MACHINE_OPEN_SECONDS', 10, 0, 3600),
    mailWorker: boolSetting(env, 'MAIL_WORKER', true),
    sequenceLeaseSeconds: intSetting(env, 'SEQUENCE_LEASE_SECONDS', 60, 1, 3600),
    mailDkim: dkimSetting(env),
  } satisfies Partial<Config>;
}
