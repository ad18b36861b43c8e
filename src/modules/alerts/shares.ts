import ipaddr from 'ipaddr.js';
import type { AlertLink, EarlierView, ViewReader } from '../links/service.ts';
import type { AlertsDeps } from './common.ts';
import { MAX_SIGNAL_AGE_MS } from './readings.ts';
import type { FeedStep, SignalDraft } from './sources.ts';

/**
 * What a directed link's views say beyond their reading (docs/alerts.md, "Revisits and forwards"):
 * a customer back on the link after days without a view of it (`revisit`), and the link opened by
 * someone other than its customer (`forward`). Judged from the view's reader as the links module
 * recorded it (its visitor cookie, its address as stored, the address it gave) and the link's earlier
 * views, read through the links' read model.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The network of an address as a view stores it (truncated or whole): its IPv4 /24 or IPv6 /48, or null. */
export function networkOf(ip: string | null): string | null {
  if (ip === null || !ipaddr.isValid(ip)) return null;
  const addr = ipaddr.process(ip);
  const cidr = addr.kind() === 'ipv4' ? 24 : 48;
  const net =
    addr.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${cidr}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${cidr}`);
  return `${net.toNormalizedString()}/${cidr}`;
}

/** Why a view is a forward: the address its reader gave (not the customer's), or a likely one (a new device on a new network). */
export type Forward = { email: string; verified: boolean } | { email: null } | null;

/**
 * Whether a view of a directed link is a forward, given the link's earlier views by its customer
 * (`earlier`, null: not looked at) and, when its reader gave an address, whether that address is the
 * customer's. A reader who gave an address is judged by it alone: the customer's is no forward, any
 * other is. Without one, a view is a **likely** forward when its visitor cookie is new to the link, the
 * link was read before by the viewer (with a cookie), and every such earlier view came from another
 * network (IPv4 /24, IPv6 /48), each known: a customer's second device on their own network (the
 * office, home) is not one; their phone on a mobile network is told as a likely forward.
 */
export function forwardOf(view: ViewReader, earlier: EarlierView[] | null, addressIsCustomers: boolean): Forward {
  if (view.email !== null) return addressIsCustomers ? null : { email: view.email, verified: view.verified };
  if (earlier === null || view.visitorId === null) return null;
  const recorded = earlier.filter((e) => e.visitorId !== null);
  if (recorded.length === 0 || recorded.some((e) => e.visitorId === view.visitorId)) return null;
  const network = networkOf(view.ip);
  if (network === null) return null;
  return recorded.every((e) => {
    const other = networkOf(e.ip);
    return other !== null && other !== network;
  })
    ? { email: null }
    : null;
}

/** Whole days between the link's last earlier view (its last beacon) and this one's start; null for a first view. */
export function idleDaysOf(view: ViewReader, earlier: EarlierView[]): number | null {
  if (earlier.length === 0) return null;
  const last = Math.max(...earlier.map((e) => e.lastAt));
  return Math.floor((view.viewTime - last) / DAY_MS);
}

type ViewStep = Extract<FeedStep, { kind: 'open' | 'reader' }>;

const base = (step: ViewStep, link: AlertLink) => ({
  appId: step.appId,
  customerId: step.customerId,
  subject: link.id,
  at: step.at,
  concerned: link.creatorId === null ? [] : [link.creatorId],
  personal: false,
});

function forwardDraft(step: ViewStep, link: AlertLink, view: ViewReader, f: NonNullable<Forward>): SignalDraft {
  return {
    ...base(step, link),
    signal: 'forward',
    // Once per new reader of the link: its visitor cookie (a view without one: itself).
    key: `forward:${link.id}:${view.visitorId ?? view.id}`,
    data: {
      linkId: link.id,
      linkName: link.name,
      viewId: view.id,
      email: f.email,
      verified: f.email === null ? false : f.verified,
      likely: f.email === null,
    },
  };
}

const revisitDraft = (step: ViewStep, link: AlertLink, view: ViewReader, days: number): SignalDraft => ({
  ...base(step, link),
  signal: 'revisit',
  key: `revisit:${view.id}`,
  data: { linkId: link.id, linkName: link.name, viewId: view.id, days },
});

/** One project's opens and forms of directed links, judged. */
async function projectDrafts(deps: Pick<AlertsDeps, 'links' | 'contacts'>, appId: string, steps: ViewStep[]): Promise<SignalDraft[]> {
  const links = await deps.links.alertLinks(appId, [...new Set(steps.map((s) => s.linkId))]);
  const readers = await deps.links.viewReaders(appId, [...new Set(steps.map((s) => s.viewId))]);
  const drafts: SignalDraft[] = [];
  const seen = new Set<string>();
  for (const step of steps) {
    const link = links.get(step.linkId);
    const view = readers.get(step.viewId);
    // Only a link directed at this very customer: a view attributed otherwise is no signal (as deck_opened).
    if (link === undefined || link.directedAt !== step.customerId || view === undefined || view.linkId !== link.id) continue;
    if (seen.has(`${step.kind}:${view.id}`)) continue;
    seen.add(`${step.kind}:${view.id}`);
    const own =
      view.email === null ? false : (await deps.contacts.viewerCustomerByContact(appId, null, view.email))?.id === link.directedAt;
    // A form's address is judged alone; a view's open against the link's earlier views too.
    const earlier =
      step.kind === 'open' ? await deps.links.earlierViews(appId, { linkId: link.id, customerId: step.customerId, seq: view.seq }) : null;
    const forward = forwardOf(view, earlier, own);
    if (forward !== null) {
      drafts.push(forwardDraft(step, link, view, forward));
      continue;
    }
    const days = earlier === null ? null : idleDaysOf(view, earlier);
    if (days !== null && days >= 1) drafts.push(revisitDraft(step, link, view, days));
  }
  return drafts;
}

/**
 * The `revisit` and `forward` drafts of a pass's steps: the opens of directed links' views (both) and
 * the forms filled during them (a forward by the address given). A view judged a forward is no
 * revisit: the reader is not the customer coming back.
 */
export async function shareDrafts(deps: Pick<AlertsDeps, 'links' | 'contacts'>, steps: FeedStep[], now: number): Promise<SignalDraft[]> {
  const byApp = new Map<string, ViewStep[]>();
  for (const s of steps) {
    if ((s.kind !== 'open' && s.kind !== 'reader') || s.at < now - MAX_SIGNAL_AGE_MS) continue;
    byApp.set(s.appId, [...(byApp.get(s.appId) ?? []), s]);
  }
  const drafts: SignalDraft[] = [];
  for (const [appId, list] of byApp) drafts.push(...(await projectDrafts(deps, appId, list)));
  return drafts;
}
