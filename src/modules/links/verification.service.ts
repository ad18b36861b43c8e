import { randomInt } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import { canonicalAddress } from './access-lists.ts';
import type { LinkRow } from './mapper.ts';
import type { LinkSigning } from './signing.ts';
import { type CodeKey, verificationRepository } from './verification.repository.ts';
import { readerTitle } from './viewer-model.ts';

/** How long a mailed code opens the gate. */
export const CODE_TTL_MS = 10 * 60_000;
/** How soon after a code the same address may be sent another. */
export const CODE_RESEND_MS = 60_000;
/** Wrong codes of one address on one link, within CODE_LOCK_MS of the first, that lock it. */
export const CODE_FAILURES = 5;
/** How long wrong codes are counted over, and how long the address is then locked. */
export const CODE_LOCK_MS = 15 * 60_000;
/** Addresses one link mails a code to at most in an hour (mail a stranger can make the server send). */
export const LINK_CODES_PER_HOUR = 200;
/** A row of codes is forgotten this long after its code was sent (its code, wrong codes and lock are over by then). */
const CODE_ROW_MS = 3600_000;

/** How the viewer's mail leaves: the server's sender (SMTP_URL), with the project's name as the From. */
export interface ViewerMail {
  configured(): boolean;
  send(appId: string, mail: { to: string; subject: string; text: string }): Promise<void>;
}

/** What asking for a code came to. */
export type CodeRequest =
  | { sent: true }
  | { waitFor: number }
  | { lockedFor: number }
  /** The link mailed LINK_CODES_PER_HOUR codes this hour. */
  | { busy: number }
  /** The mail server did not take it (or the server sends no mail). */
  | { unsent: true };

/** What a code given came to. */
export type CodeCheck = { right: true } | { wrong: true } | { lockedFor: number } | { expired: true };

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The e-mail gate's one-time codes (docs/links.md, "Verified readers"): six random digits mailed to
 * the address given, stored as an HMAC for CODE_TTL_MS, another at most every CODE_RESEND_MS; the
 * CODE_FAILURES-th wrong code of the address on the link within CODE_LOCK_MS locks it for as long
 * (the right code refused too, and forgotten). Keyed by the address's canonical form, so `+tags` and
 * case buy no fresh tries.
 */
export function createEmailCodes(ctx: AppContext, deps: { signing: LinkSigning; mail: ViewerMail | undefined }) {
  const { signing, mail } = deps;
  const { logger } = ctx;
  const db = ctx.database.db;
  const repo = verificationRepository;

  const keyOf = (link: LinkRow, email: string): CodeKey | null => {
    const address = canonicalAddress(email);
    return address === null ? null : { appId: link.app_id, linkId: link.id, address };
  };

  /** Why no code was stored: the address is locked, or was sent one a moment ago. */
  async function refusal(key: CodeKey, now: number): Promise<CodeRequest> {
    const row = await repo.state(db, key);
    const locked = row?.locked_until == null ? 0 : Number(row.locked_until);
    if (locked > now) return { lockedFor: seconds(locked - now) };
    return { waitFor: seconds(Number(row?.sent_at ?? now) + CODE_RESEND_MS - now) };
  }

  function message(link: LinkRow, code: string) {
    const title = readerTitle(link);
    return {
      subject: `${code} is your code for “${title}”`,
      text:
        `Your code to open “${title}” is:\n\n    ${code}\n\n` +
        `It is valid for ${CODE_TTL_MS / 60_000} minutes. Enter it on the page that asked for your e-mail address.\n\n` +
        'If you did not ask for this code, ignore this message: nothing opens without it.\n',
    };
  }

  /** The background job `link-code-expiry`: every ten minutes, every project's codes whose time is over are forgotten. */
  const expiryJob: JobDefinition = {
    name: 'link-code-expiry',
    idleMs: 10 * 60_000,
    tick: async () => {
      const now = ctx.clock.now();
      return (await repo.expire(db, now - CODE_ROW_MS, now)) > 0 ? 'worked' : 'idle';
    },
  };

  return {
    expiryJob,

    /** Mails a new code to `email` for the link, unless the address is locked, was sent one a moment ago, or the link is busy. */
    async request(link: LinkRow, email: string, now: number): Promise<CodeRequest> {
      const key = keyOf(link, email);
      if (key === null || mail === undefined || !mail.configured()) return { unsent: true };
      await repo.forgetOld(db, link.app_id, link.id, now - CODE_ROW_MS, now);
      if ((await repo.sentSince(db, link.app_id, link.id, now - 3600_000)) >= LINK_CODES_PER_HOUR) return { busy: 3600 };
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const hash = await signing.codeHash(link.id, key.address, code);
      const stored = await repo.storeCode(db, key, { hash, now, expiresAt: now + CODE_TTL_MS, resendMs: CODE_RESEND_MS });
      if (!stored) return refusal(key, now);
      try {
        await mail.send(link.app_id, { to: email, ...message(link, code) });
        return { sent: true };
      } catch (err) {
        logger.warn({ err, appId: link.app_id, linkId: link.id }, "links: the e-mail gate's code could not be sent");
        await repo.unsent(db, key, hash);
        return { unsent: true };
      }
    },

    /** Checks a code given for `email` on the link: right (used up), wrong (counted), expired, or the address locked. */
    async check(link: LinkRow, email: string, code: string, now: number): Promise<CodeCheck> {
      const key = keyOf(link, email);
      if (key === null) return { expired: true };
      const row = await repo.state(db, key);
      const locked = row?.locked_until == null ? 0 : Number(row.locked_until);
      if (locked > now) return { lockedFor: seconds(locked - now) };
      if (row === undefined || row.code_hash === null || row.expires_at === null || Number(row.expires_at) <= now) return { expired: true };
      if (await repo.consume(db, key, await signing.codeHash(link.id, key.address, code), now)) return { right: true };
      const until = await repo.failed(db, key, { now, windowMs: CODE_LOCK_MS, max: CODE_FAILURES, lockUntil: now + CODE_LOCK_MS });
      if (until !== null && until > now) {
        logger.warn({ appId: link.app_id, linkId: link.id }, "links: too many wrong codes for an address at the link's e-mail gate");
        return { lockedFor: seconds(until - now) };
      }
      return { wrong: true };
    },
  };
}

export type EmailCodes = ReturnType<typeof createEmailCodes>;
