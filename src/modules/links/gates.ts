import type { AppContext } from '../../context.ts';
import type { AccessService } from '../access/service.ts';
import { admits, hasAccessList } from './access-lists.ts';
import type { LinkRow, Unavailable } from './mapper.ts';
import { linksRepository } from './repository.ts';
import type { LinkSigning, Unlocked } from './signing.ts';

const SHARE_TOKEN_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** What a reader meets before the document, in this order: the passcode, the e-mail gate (its code), the agreement. */
export type Gate = 'passcode' | 'email' | 'code' | 'agreement';

/** How long the e-mail gate waits for the code of the address given (a code itself lasts CODE_TTL_MS). */
export const PENDING_MS = 30 * 60 * 1000;

/** Whether the link asks for an e-mail address: its gate, or what needs it (the code, a list). */
export const emailGated = (link: LinkRow): boolean => link.email_gate === 1 || link.email_verify === 1 || hasAccessList(link);

/** Whether the cookie passed the link's e-mail gate as it stands: proved by its code when it asks one, let through by its lists. */
function gatePassed(link: LinkRow, unlocked: Unlocked): boolean {
  if (!unlocked.gate) return false;
  if (link.email_verify === 1 && unlocked.verified !== true) return false;
  return !hasAccessList(link) || (unlocked.email !== undefined && admits(link, unlocked.email));
}

/**
 * The gate the reader meets next, given what the unlock cookie proves (null: the document opens). The
 * e-mail gate is `code` while the code of the address given is awaited (PENDING_MS).
 */
export function nextGate(link: LinkRow, unlocked: Unlocked, now: number): Gate | null {
  if (link.passcode_hash !== null && !unlocked.passcode) return 'passcode';
  if (emailGated(link) && !gatePassed(link, unlocked)) {
    const { email, pendingSince } = unlocked;
    const awaited = email !== undefined && pendingSince !== undefined && now - pendingSince < PENDING_MS;
    return link.email_verify === 1 && awaited && admits(link, email) ? 'code' : 'email';
  }
  if (link.agreement != null && unlocked.agreement !== link.agreement_version) return 'agreement';
  return null;
}

/** Whether the link still asks for its passcode, its e-mail address or its agreement, given what the unlock cookie proves. */
export function isLocked(link: LinkRow, unlocked: Unlocked): boolean {
  return nextGate(link, unlocked, 0) !== null;
}

/**
 * What every public request of a link asks first: which link its share token opens (or why it does
 * not), what its unlock cookie proves, and whether the caller is a member of the link's project
 * signed in (members are never counted as viewers).
 */
export function createLinkGates(
  ctx: AppContext,
  deps: {
    access: Pick<AccessService, 'memberRecord'>;
    signing: LinkSigning;
    /** The module's repository (a spec hands a fake). */
    repository?: Pick<typeof linksRepository, 'byShareToken'>;
  },
) {
  const { clock } = ctx;
  const repo = deps.repository ?? linksRepository;
  const reader = ctx.database.reader;

  async function isMember(link: LinkRow, userId: number | null): Promise<boolean> {
    if (userId === null) return false;
    try {
      const record = await deps.access.memberRecord(link.app_id, userId);
      return record !== null && record.status === 0;
    } catch {
      return false;
    }
  }

  return {
    /**
     * The link a share token opens, or why it does not. `within`: the project whose share domain
     * the request came to; a link of another project there is as unknown as a made-up token.
     */
    async linkOf(shareToken: string, within?: string | null): Promise<{ link: LinkRow } | { why: Unavailable }> {
      if (!SHARE_TOKEN_RE.test(shareToken)) return { why: 'missing' };
      const link = await repo.byShareToken(reader, shareToken);
      if (!link || (within != null && link.app_id !== within)) return { why: 'missing' };
      if (link.status !== 1) return { why: 'disabled' };
      if (link.expires_at !== null && link.expires_at <= clock.now()) return { why: 'expired' };
      return { link };
    },

    /** The link of a share token whatever its state (disabled and expired ones too), or undefined; `within` as `linkOf`. */
    async anyLinkOf(shareToken: string, within?: string | null): Promise<LinkRow | undefined> {
      const link = await repo.byShareToken(reader, shareToken);
      return link !== undefined && (within == null || link.app_id === within) ? link : undefined;
    },

    /** What the link's unlock cookie proves. */
    unlockedOf(link: LinkRow, cookie: string | undefined): Promise<Unlocked> {
      return deps.signing.unlockedOf(link, cookie);
    },

    /** Whether the link's gates still stand before this unlock cookie. */
    async locked(link: LinkRow, cookie: string | undefined): Promise<boolean> {
      return isLocked(link, await deps.signing.unlockedOf(link, cookie));
    },

    /** Whether the request is a member of the link's project signed in (never counted as a viewer). */
    isMember,

    /** Whether the request counts as a viewer: not a bot, not a member of the link's project. */
    async counts(link: LinkRow, visitor: { userAgent: string | undefined; ip: string | undefined; userId: number | null }) {
      if (ctx.visitors.describe(visitor.userAgent, visitor.ip).isBot) return false;
      return !(await isMember(link, visitor.userId));
    },
  };
}

export type LinkGates = ReturnType<typeof createLinkGates>;
