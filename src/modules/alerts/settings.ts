import { ALERT_SIGNALS, type AlertLocale, type AlertSignal, isAlertLocale, isAlertSignal } from '../../events/alert-events.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { zoneClock } from '../../lib/zones.ts';
import type { ChoiceRow, SettingsRow } from './repository.ts';

/**
 * A member's alert preferences (docs/alerts.md "Settings"): what they are, their defaults, how a
 * request changes them, and what holds in one project. Pure.
 */

export type EmailMode = 'off' | 'instant' | 'digest';
export const EMAIL_MODES: readonly EmailMode[] = ['off', 'instant', 'digest'];
/** A member's reach in a project: the customers they are concerned with, every customer they may see, or nothing. */
export type Scope = 'mine' | 'all' | 'none';
export const SCOPES: readonly Scope[] = ['mine', 'all', 'none'];

/** What a member wants, whatever the project. */
export interface MemberSettings {
  signals: AlertSignal[];
  /** deck_read: the share of a deck's pages (%) a reading must reach. */
  readThreshold: number;
  /** revisit: the days without a view of a link the customer's return must follow. */
  revisitDays: number;
  inbox: boolean;
  email: EmailMode;
  /** IANA zone of the digest hour. */
  timeZone: string;
  digestHour: number;
  locale: AlertLocale;
}

/** A member's choice in one project; null fields follow their own settings. */
export interface ProjectChoice {
  scope: Scope;
  signals: AlertSignal[] | null;
  readThreshold: number | null;
  revisitDays: number | null;
}

/** What holds for a member in one project. */
export interface Effective {
  scope: Scope;
  signals: ReadonlySet<AlertSignal>;
  readThreshold: number;
  revisitDays: number;
  inbox: boolean;
  email: EmailMode;
  locale: AlertLocale;
}

export const DEFAULT_THRESHOLD = 50;
/** revisit: the days without a view a return must follow, unless the member chooses (1–90). */
export const DEFAULT_REVISIT_DAYS = 3;
export const MAX_REVISIT_DAYS = 90;
export const DEFAULT_DIGEST_HOUR = 8;
/** Projects one request may set. */
export const MAX_PROJECT_CHOICES = 200;

/**
 * The defaults: every signal, to the inbox, no e-mail (a server that is upgraded starts mailing no
 * one), a digest at 08:00 in the server's zone once e-mail is set to digest, in English.
 */
export function defaultSettings(serverZone: string): MemberSettings {
  return {
    signals: [...ALERT_SIGNALS],
    readThreshold: DEFAULT_THRESHOLD,
    revisitDays: DEFAULT_REVISIT_DAYS,
    inbox: true,
    email: 'off',
    timeZone: serverZone,
    digestHour: DEFAULT_DIGEST_HOUR,
    locale: 'en-US',
  };
}

export const DEFAULT_CHOICE: ProjectChoice = { scope: 'mine', signals: null, readThreshold: null, revisitDays: null };

/** A comma list of signals (empty: none), each known. */
export function parseSignals(raw: string): AlertSignal[] {
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== ''),
    ),
  ];
  const bad = names.find((s) => !isAlertSignal(s));
  if (bad !== undefined) throw failure('signals_invalid', `unknown signal ${bad.slice(0, 40)}; use ${ALERT_SIGNALS.join(', ')}`);
  return ALERT_SIGNALS.filter((s) => names.includes(s));
}

function threshold(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100) throw failure('read_threshold_invalid');
  return value;
}

function revisitDays(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_REVISIT_DAYS) throw failure('revisit_days_invalid');
  return value;
}

/** A settings change as a request gives it: the fields given change. */
export interface SettingsInput {
  signals?: string | undefined;
  read_threshold?: number | undefined;
  revisit_days?: number | undefined;
  inbox?: number | undefined;
  email?: string | undefined;
  time_zone?: string | undefined;
  digest_hour?: number | undefined;
  locale?: string | undefined;
  projects?: string | unknown[] | undefined;
}

/** The member's settings after a change, each field checked. */
export function applySettings(current: MemberSettings, input: SettingsInput): MemberSettings {
  const next = { ...current };
  if (input.signals !== undefined) next.signals = parseSignals(input.signals);
  if (input.read_threshold !== undefined) next.readThreshold = threshold(input.read_threshold);
  if (input.revisit_days !== undefined) next.revisitDays = revisitDays(input.revisit_days);
  if (input.inbox !== undefined) {
    if (input.inbox !== 0 && input.inbox !== 1) throw badRequest("Invalid parameter 'inbox': 0 or 1");
    next.inbox = input.inbox === 1;
  }
  if (input.email !== undefined) {
    const mode = input.email.trim().toLowerCase();
    if (!(EMAIL_MODES as readonly string[]).includes(mode)) throw failure('email_mode_invalid');
    next.email = mode as EmailMode;
  }
  if (input.time_zone !== undefined) {
    const zone = input.time_zone.trim();
    if (zoneClock(zone) === null) throw failure('time_zone_invalid');
    next.timeZone = zone;
  }
  if (input.digest_hour !== undefined) {
    if (!Number.isInteger(input.digest_hour) || input.digest_hour < 0 || input.digest_hour > 23) throw failure('digest_hour_invalid');
    next.digestHour = input.digest_hour;
  }
  if (input.locale !== undefined) {
    const locale = input.locale.trim();
    if (!isAlertLocale(locale)) throw failure('locale_invalid');
    next.locale = locale;
  }
  return next;
}

/** One project's choice as a request gives it. */
export interface ChoiceInput {
  appId: string;
  choice: ProjectChoice;
}

const projectsInvalid = (detail: string) => failure('projects_invalid', `projects: ${detail}`);

function choiceOf(item: unknown, i: number): ChoiceInput {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw projectsInvalid(`item ${i} is not an object`);
  const o = item as Record<string, unknown>;
  const appId = o.app_id ?? o.appId;
  if (typeof appId !== 'string' || appId === '' || appId.length > 64) throw projectsInvalid(`item ${i} needs app_id`);
  const scope = o.scope ?? 'mine';
  if (typeof scope !== 'string' || !(SCOPES as readonly string[]).includes(scope.toLowerCase())) throw failure('scope_invalid');
  const signals = o.signals ?? null;
  if (signals !== null && typeof signals !== 'string' && !Array.isArray(signals))
    throw projectsInvalid(`item ${i}: signals is a comma list`);
  const t = o.read_threshold ?? o.readThreshold ?? null;
  const days = o.revisit_days ?? o.revisitDays ?? null;
  return {
    appId,
    choice: {
      scope: scope.toLowerCase() as Scope,
      signals: signals === null ? null : parseSignals(Array.isArray(signals) ? signals.map(String).join(',') : signals),
      readThreshold: t === null ? null : threshold(t),
      revisitDays: days === null ? null : revisitDays(days),
    },
  };
}

/** `projects`: a JSON array (or its text) of `{app_id, scope, signals, read_threshold, revisit_days}`, each project once. */
export function parseChoices(raw: string | unknown[]): ChoiceInput[] {
  let items: unknown = raw;
  if (typeof raw === 'string') {
    try {
      items = JSON.parse(raw);
    } catch {
      throw projectsInvalid('not a JSON array');
    }
  }
  if (!Array.isArray(items)) throw projectsInvalid('not a JSON array');
  if (items.length > MAX_PROJECT_CHOICES) throw projectsInvalid(`at most ${MAX_PROJECT_CHOICES} projects`);
  const out = items.map(choiceOf);
  if (new Set(out.map((c) => c.appId)).size !== out.length) throw projectsInvalid('a project is named twice');
  return out;
}

/** What holds for the member in a project: their settings, narrowed by the project's choice. */
export function effectiveIn(member: MemberSettings, choice: ProjectChoice | null): Effective {
  const c = choice ?? DEFAULT_CHOICE;
  return {
    scope: c.scope,
    signals: new Set(c.signals ?? member.signals),
    readThreshold: c.readThreshold ?? member.readThreshold,
    revisitDays: c.revisitDays ?? member.revisitDays,
    inbox: member.inbox,
    email: member.email,
    locale: member.locale,
  };
}

const signalList = (raw: string | null): AlertSignal[] | null =>
  raw === null ? null : ALERT_SIGNALS.filter((s) => raw.split(',').some((x) => x === s && isAlertSignal(x)));

/** A member's stored settings (the defaults for none). */
export function settingsOfRow(row: SettingsRow | null | undefined, serverZone = 'UTC'): MemberSettings {
  if (row === null || row === undefined) return defaultSettings(serverZone);
  return {
    signals: signalList(row.signals) ?? [],
    readThreshold: row.read_threshold,
    revisitDays: row.revisit_days,
    inbox: row.inbox === 1,
    email: (['off', 'instant', 'digest'].includes(row.email) ? row.email : 'off') as EmailMode,
    timeZone: row.time_zone,
    digestHour: row.digest_hour,
    locale: isAlertLocale(row.locale) ? row.locale : 'en-US',
  };
}

export function choiceOfRow(row: ChoiceRow): ProjectChoice {
  return {
    scope: ((SCOPES as readonly string[]).includes(row.scope) ? row.scope : 'mine') as Scope,
    signals: signalList(row.signals),
    readThreshold: row.read_threshold,
    revisitDays: row.revisit_days,
  };
}
