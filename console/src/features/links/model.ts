/** What the link pages compute from the API's records, pure: a link's state and kind as a person reads them. */

/** The link's state for its badge: disabled (status 0), expired (expiresAt past), else active. */
export type LinkState = 'active' | 'disabled' | 'expired';

export function linkState(
  link: { status: number; expiresAt: string | null },
  now: Date,
  parse: (t: string) => Date | undefined,
): LinkState {
  if (link.status === 0) return 'disabled';
  const at = link.expiresAt ? parse(link.expiresAt) : undefined;
  if (at && at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The link kinds of the API's `type`. */
export const LINK_TYPES = { 1: 'file', 2: 'web', 3: 'redirect', 4: 'room' } as const;
export type LinkKind = (typeof LINK_TYPES)[keyof typeof LINK_TYPES];

export function linkKind(type: number): LinkKind {
  return LINK_TYPES[type as 1 | 2 | 3 | 4] ?? 'file';
}
