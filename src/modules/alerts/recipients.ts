import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { AlertLocale, AlertSignal } from '../../events/alert-events.ts';
import type { ActiveChannel } from '../webhooks/service.ts';
import type { VisibleCustomer } from '../customers/service.ts';
import type { AlertsDeps } from './common.ts';
import { settingsRepository } from './repository.ts';
import {
  DEFAULT_REVISIT_DAYS,
  type Effective,
  type MemberSettings,
  type ProjectChoice,
  choiceOfRow,
  effectiveIn,
  settingsOfRow,
} from './settings.ts';
import type { SignalDraft } from './sources.ts';
import { type Facts, type HotFacts, reasonFactsOf } from './words.ts';

/**
 * Who gets a signal (docs/alerts.md "Who is told"): the members it concerns (the customer's owner,
 * the link's creator, a task's assignee, who is mentioned) and, for the customer's signals, those who
 * asked for every customer they may see in the project (scope `all`); each only while an active
 * member who may see the customer (the customer list's rule: the Master and Admins every customer,
 * a Sales member their own), with the signal on and, for a reading, its threshold reached. And the
 * project's channels that post it.
 */

/** How a member is told: the inbox, an e-mail now or in the digest, in their language. */
export interface Recipient {
  userId: number;
  inbox: boolean;
  mail: 'none' | 'queued' | 'digest';
  locale: AlertLocale;
}

/** A signal ready to be written: its customer, its words' facts, who is told and which channels post it. */
export interface Planned {
  draft: SignalDraft;
  customer: VisibleCustomer;
  facts: Facts;
  recipients: Recipient[];
  channels: string[];
}

/** What one project's resolution reads once: settings, choices, memberships, names. */
interface ProjectView {
  settings: Map<number, MemberSettings>;
  choices: Map<number, ProjectChoice>;
  roles: Map<number, string | null>;
  allScope: number[];
  channels: ActiveChannel[];
}

/** The facts the words are made of: the draft's data and the names. */
function factsOf(d: SignalDraft, customer: VisibleCustomer, names: Map<number, string | null>): Facts {
  const data = d.data;
  const link = typeof data.linkName === 'string' ? data.linkName : null;
  switch (d.signal) {
    case 'deck_opened':
      return { signal: 'deck_opened', customer: customer.name, link };
    case 'deck_read':
      return {
        signal: 'deck_read',
        customer: customer.name,
        link,
        pagesRead: Number(data.pagesRead),
        pageCount: Number(data.pageCount),
        seconds: Number(data.seconds),
        ...(data.hot === true ? { hot: hotFacts(data) } : {}),
      };
    case 'revisit':
      return { signal: 'revisit', customer: customer.name, link, days: Number(data.days) };
    case 'forward':
      return { signal: 'forward', customer: customer.name, link, email: typeof data.email === 'string' ? data.email : null };
    case 'task_due':
      return { signal: 'task_due', customer: customer.name, title: String(data.title ?? ''), dueAt: String(data.dueAt ?? '') };
    case 'mention':
      return {
        signal: 'mention',
        customer: customer.name,
        author: names.get(Number(data.authorId)) ?? null,
        mentioned: names.get(Number(data.mentionedId)) ?? null,
        excerpt: String(data.excerpt ?? ''),
      };
    case 'hot_lead':
      return { signal: 'hot_lead', customer: customer.name, ...hotFacts(data) };
    case 'playbook':
      return {
        signal: 'playbook',
        customer: customer.name,
        playbook: String(data.playbookName ?? ''),
        what: String(data.what ?? ''),
        whatZh: String(data.whatZh ?? data.what ?? ''),
      };
  }
}

/** A hot lead's score and reasons as a draft's data holds them. */
function hotFacts(data: Record<string, unknown>): HotFacts {
  const reasons = Array.isArray(data.reasons) ? data.reasons.map(String) : [];
  const details = reasonFactsOf(data.reasonDetails, reasons.length);
  return {
    score: typeof data.score === 'number' ? data.score : null,
    reasons,
    ...(details?.length === reasons.length ? { details } : {}),
  };
}

/**
 * Whether a member or channel taking these signals, with this threshold, takes the draft: a reading
 * reaching the threshold; a reading during which the customer became a hot lead (docs/alerts.md, "A
 * hot lead during a reading") also for hot leads, whatever was read; a return after at least
 * `revisitDays` days without a view (a channel's: the default).
 */
export function takes(
  d: SignalDraft,
  signals: { has(s: AlertSignal): boolean },
  readThreshold: number,
  revisitDays = DEFAULT_REVISIT_DAYS,
): boolean {
  if (d.signal === 'revisit') return signals.has('revisit') && Number(d.data.days) >= revisitDays;
  if (d.signal !== 'deck_read') return signals.has(d.signal);
  if (d.data.hot === true && signals.has('hot_lead')) return true;
  return signals.has('deck_read') && Number(d.data.percent) >= readThreshold;
}

/** The members a draft concerns, the customer's owner included for the customer's own signals. */
function concernedOf(d: SignalDraft, customer: VisibleCustomer): Set<number> {
  const out = new Set(d.concerned);
  if (!d.personal) out.add(customer.ownerId);
  return out;
}

/** Whether a member with these settings is told of the draft, and how. */
function recipientOf(d: SignalDraft, eff: Effective, userId: number, concerned: boolean): Recipient | null {
  if (eff.scope === 'none' || !takes(d, eff.signals, eff.readThreshold, eff.revisitDays)) return null;
  if (!concerned && (d.personal || eff.scope !== 'all')) return null;
  const mail = eff.email === 'instant' ? 'queued' : eff.email === 'digest' ? 'digest' : 'none';
  if (!eff.inbox && mail === 'none') return null;
  return { userId, inbox: eff.inbox, mail, locale: eff.locale };
}

async function projectView(
  deps: AlertsDeps,
  db: Kysely<Database>,
  appId: string,
  users: Set<number>,
  serverZone: string,
): Promise<ProjectView> {
  const allScope = await settingsRepository.allScope(db, appId);
  for (const u of allScope) users.add(u);
  const ids = [...users];
  const settings = new Map((await settingsRepository.ofUsers(db, ids)).map((r) => [r.user_id, settingsOfRow(r)]));
  for (const u of ids) if (!settings.has(u)) settings.set(u, settingsOfRow(null, serverZone));
  const choices = new Map((await settingsRepository.choicesIn(db, appId, ids)).map((r) => [r.user_id, choiceOfRow(r)]));
  const roles = new Map<number, string | null>();
  for (const u of ids) {
    const m = await deps.access.memberRecord(appId, u).catch(() => null);
    roles.set(u, m !== null && m.status === 0 ? m.role : null);
  }
  return { settings, choices, roles, allScope, channels: await deps.channels.active(appId) };
}

/** Members' names, looked up once per pass (a mention's author and the member mentioned). */
async function memberNames(deps: AlertsDeps, drafts: SignalDraft[]): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  for (const d of drafts) {
    if (d.signal !== 'mention') continue;
    for (const id of [Number(d.data.authorId), Number(d.data.mentionedId)]) {
      if (!Number.isInteger(id) || out.has(id)) continue;
      out.set(id, (await deps.accounts.userById(id))?.name ?? null);
    }
  }
  return out;
}

/** One project's drafts, resolved: those about a customer no longer live are dropped. */
async function resolveProject(
  deps: AlertsDeps,
  db: Kysely<Database>,
  appId: string,
  drafts: SignalDraft[],
  serverZone: string,
): Promise<Planned[]> {
  const customers = await deps.customers.liveCustomers(appId, [...new Set(drafts.map((d) => d.customerId))]);
  const users = new Set<number>();
  for (const d of drafts) {
    const c = customers.get(d.customerId);
    if (c !== undefined) for (const u of concernedOf(d, c)) users.add(u);
  }
  const view = await projectView(deps, db, appId, users, serverZone);
  const names = await memberNames(deps, drafts);
  const out: Planned[] = [];
  for (const d of drafts) {
    const customer = customers.get(d.customerId);
    if (customer === undefined) continue;
    const concerned = concernedOf(d, customer);
    const recipients: Recipient[] = [];
    for (const u of new Set([...concerned, ...view.allScope])) {
      const role = view.roles.get(u) ?? null;
      // The customer list's rule, asked now: an active member who may see the customer.
      if (role === null || (role === 'Sales' && customer.ownerId !== u)) continue;
      const eff = effectiveIn(view.settings.get(u) as MemberSettings, view.choices.get(u) ?? null);
      const r = recipientOf(d, eff, u, concerned.has(u));
      if (r !== null) recipients.push(r);
    }
    const channels = view.channels.filter((c) => takes(d, new Set(c.signals), c.readThreshold)).map((c) => c.id);
    out.push({ draft: d, customer, facts: factsOf(d, customer, names), recipients, channels });
  }
  return out;
}

/** Every draft of a pass, resolved project by project. */
export async function resolveDrafts(deps: AlertsDeps, db: Kysely<Database>, drafts: SignalDraft[], serverZone: string): Promise<Planned[]> {
  const byApp = new Map<string, SignalDraft[]>();
  for (const d of drafts) byApp.set(d.appId, [...(byApp.get(d.appId) ?? []), d]);
  const out: Planned[] = [];
  for (const [appId, list] of byApp) out.push(...(await resolveProject(deps, db, appId, list, serverZone)));
  return out;
}
