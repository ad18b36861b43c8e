import { createHash, createHmac } from 'node:crypto';
import { type SigningKey, deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import type { Clock } from '../../lib/time.ts';
import type { LinkRow } from './mapper.ts';

/** How long a page's view token opens a view and carries its beacons. */
const VIEW_TOKEN_TTL_S = 24 * 3600;
/** How long an unlocked passcode or a passed e-mail gate lasts in the visitor's browser. */
export const UNLOCK_TTL_S = 30 * 24 * 3600;
/** How long a visitor hand-off to the project's site (`rapport_lv`) identifies the visitor there. */
const HANDOFF_TTL_S = 30 * 24 * 3600;

/** What the unlock cookie proves for one link. */
export interface Unlocked {
  passcode: boolean;
  gate: boolean;
  /** The address the e-mail gate was passed with, or (`pendingSince`) the one waiting for its code. */
  email?: string | undefined;
  /** The name given with it. */
  name?: string | undefined;
  /** The address was proved by the code mailed to it. */
  verified?: boolean | undefined;
  /** When (epoch ms) the code of `email` was asked for: the gate waits for that code. */
  pendingSince?: number | undefined;
  /** The version of the link's agreement accepted. */
  agreement?: number | undefined;
}

type UnlockValue = { l?: unknown; p?: unknown; g?: unknown; e?: unknown; m?: unknown; n?: unknown; v?: unknown; w?: unknown; a?: unknown };

/** What the cookie says beyond the passcode and the gate (each only when it is there). */
function extras(value: UnlockValue): Omit<Unlocked, 'passcode' | 'gate'> {
  const out: Omit<Unlocked, 'passcode' | 'gate'> = {};
  if (typeof value.m === 'string') out.email = value.m;
  if (typeof value.n === 'string') out.name = value.n;
  if (value.v === 1) out.verified = true;
  if (typeof value.w === 'number') out.pendingSince = value.w * 1000;
  if (typeof value.a === 'number') out.agreement = value.a;
  return out;
}

const passcodeFingerprint = (hash: string) => createHash('sha256').update(hash).digest('base64url').slice(0, 12);

/**
 * The viewer's signed values: the view token a page carries, the unlock cookie of a link (its
 * passcode given, its e-mail gate passed or its code awaited, its agreement accepted), the visitor's
 * hand-off to the project's site, and the e-mail gate's codes as stored. Their keys
 * are derived from a secret the server makes once and keeps in the database (`secret`), so that every
 * process and every server signs and checks alike.
 */
export function createLinkSigning(clock: Clock, secret: () => Promise<Buffer>) {
  let keys: Promise<{ view: SigningKey; unlock: SigningKey; handoff: SigningKey; codes: SigningKey }> | null = null;
  function signingKeys() {
    keys ??= secret()
      .then((raw) => ({
        view: deriveKey(raw, 'view tokens'),
        unlock: deriveKey(raw, 'link unlock'),
        handoff: deriveKey(raw, 'site handoff'),
        codes: deriveKey(raw, 'link email codes'),
      }))
      .catch((err: unknown) => {
        keys = null;
        throw err;
      });
    return keys;
  }
  const seconds = () => Math.floor(clock.now() / 1000);

  return {
    /** A token naming the view `viewId` of the link, as its page carries it. */
    async viewToken(linkId: string, viewId: string): Promise<string> {
      return signValue((await signingKeys()).view, { l: linkId, v: viewId, t: seconds() });
    },

    /** The view a token names for this link, or null (forged, another link's, too old). */
    async viewOf(token: string, linkId: string): Promise<string | null> {
      const value = verifyValue((await signingKeys()).view, token) as { l?: unknown; v?: unknown; t?: unknown } | null;
      if (value === null || value.l !== linkId || typeof value.v !== 'string' || typeof value.t !== 'number') return null;
      if (clock.now() / 1000 - value.t > VIEW_TOKEN_TTL_S) return null;
      return value.v;
    },

    /** What the link's unlock cookie, as the browser sent it, proves (a passcode since changed proves nothing). */
    async unlockedOf(link: LinkRow, cookie: string | undefined): Promise<Unlocked> {
      if (cookie === undefined) return { passcode: false, gate: false };
      const value = verifyValue((await signingKeys()).unlock, cookie) as UnlockValue | null;
      if (value === null || value.l !== link.id || typeof value.e !== 'number' || value.e < clock.now() / 1000) {
        return { passcode: false, gate: false };
      }
      return {
        passcode: link.passcode_hash !== null && value.p === passcodeFingerprint(link.passcode_hash),
        gate: value.g === 1,
        ...extras(value),
      };
    },

    /** The link's unlock cookie proving `unlocked`, for UNLOCK_TTL_S. */
    async unlockCookie(link: LinkRow, unlocked: Unlocked): Promise<string> {
      return signValue((await signingKeys()).unlock, {
        l: link.id,
        ...(unlocked.passcode && link.passcode_hash !== null ? { p: passcodeFingerprint(link.passcode_hash) } : {}),
        ...(unlocked.gate ? { g: 1 } : {}),
        ...(unlocked.email !== undefined ? { m: unlocked.email } : {}),
        ...(unlocked.name !== undefined ? { n: unlocked.name.slice(0, 120) } : {}),
        ...(unlocked.verified === true ? { v: 1 } : {}),
        ...(unlocked.pendingSince !== undefined ? { w: Math.floor(unlocked.pendingSince / 1000) } : {}),
        ...(unlocked.agreement !== undefined ? { a: unlocked.agreement } : {}),
        e: seconds() + UNLOCK_TTL_S,
      });
    },

    /** How the e-mail gate's code of an address on a link is stored: an HMAC, no code in the clear. */
    async codeHash(linkId: string, address: string, code: string): Promise<string> {
      return createHmac('sha256', (await signingKeys()).codes)
        .update(`${linkId}\n${address}\n${code}`)
        .digest('base64url');
    },

    /** The hand-off (`rapport_lv`) naming the link visitor to the project's site. */
    async handoffToken(appId: string, visitorId: string): Promise<string> {
      return signValue((await signingKeys()).handoff, { a: appId, v: visitorId, t: seconds() });
    },

    /** The link visitor a hand-off names in this project, or null (forged, another project's, too old). */
    async handedOffVisitor(appId: string, token: string): Promise<string | null> {
      const value = verifyValue((await signingKeys()).handoff, token) as { a?: unknown; v?: unknown; t?: unknown } | null;
      if (value === null || value.a !== appId || typeof value.v !== 'string' || typeof value.t !== 'number') return null;
      if (clock.now() / 1000 - value.t > HANDOFF_TTL_S) return null;
      return value.v;
    },
  };
}

export type LinkSigning = ReturnType<typeof createLinkSigning>;
