import type { AppContext } from '../../context.ts';
import type { AccessService } from '../access/service.ts';
import type { LinkRow, Unavailable } from './mapper.ts';
import { linksRepository } from './repository.ts';
import type { LinkSigning, Unlocked } from './signing.ts';

const SHARE_TOKEN_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether the link still asks for its passcode or its e-mail address, given what the unlock cookie proves. */
export function isLocked(link: LinkRow, unlocked: Unlocked): boolean {
  return (link.passcode_hash !== null && !unlocked.passcode) || (link.email_gate === 1 && !unlocked.gate);
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
