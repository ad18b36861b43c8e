import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { nextLocalHour, zoneClock } from '../../lib/zones.ts';
import type { InboxRepository, Standing } from './inbox.repository.ts';
import { toSettings } from './mapper.ts';
import { type SettingsRow, settingsRepository as repo } from './repository.ts';
import {
  type MemberSettings,
  type SettingsInput,
  applySettings,
  choiceOfRow,
  effectiveIn,
  parseChoices,
  settingsOfRow,
} from './settings.ts';

/** The caller of the user-level routes: the signed-in platform user. */
export interface AlertCaller {
  id: number;
  email: string | null;
}

/** A user's active memberships in live projects, with each project's name and their role. */
export type MembershipsOf = (userId: number) => Promise<{ id: string; name: string | null; role: string }[]>;

/** A member's standing for their notifications: where they see every customer, where their own; and the projects' names. */
export async function standingOf(memberships: MembershipsOf, userId: number): Promise<Standing & { names: Map<string, string | null> }> {
  const list = await memberships(userId);
  return {
    managerOf: list.filter((m) => m.role === 'Master' || m.role === 'Admin').map((m) => m.id),
    salesOf: list.filter((m) => m.role !== 'Master' && m.role !== 'Admin').map((m) => m.id),
    names: new Map(list.map((m) => [m.id, m.name])),
  };
}

/**
 * A member's notification settings (docs/alerts.md "Settings"): `GET` answers what holds (the
 * defaults until they change anything) with their choice in each of their projects; `PUT` changes the
 * fields given. Choosing the digest sets when the next one is due, at the member's hour in their zone.
 */
export function createAlertSettings(ctx: AppContext, deps: { memberships: MembershipsOf; inbox: InboxRepository }) {
  const db = ctx.database.db;
  const { clock, config } = ctx;

  /** When the next digest is due after a change: kept while the zone and hour stay, else the next such hour from now. */
  function nextDigest(next: MemberSettings, stored: SettingsRow | undefined, now: number): number | null {
    if (next.email !== 'digest') return null;
    const same = stored?.email === 'digest' && stored.time_zone === next.timeZone && stored.digest_hour === next.digestHour;
    if (same && stored.next_digest_at !== null) return stored.next_digest_at;
    return nextLocalHour(zoneClock(next.timeZone) ?? clock, now, next.digestHour);
  }

  async function get(caller: AlertCaller) {
    const stored = await repo.find(db, caller.id);
    const choices = new Map((await repo.choicesOfUser(db, caller.id)).map((r) => [r.app_id, choiceOfRow(r)]));
    const projects = (await deps.memberships(caller.id)).map((p) => ({
      appId: p.id,
      name: p.name,
      role: p.role,
      choice: choices.get(p.id) ?? { scope: 'mine' as const, signals: null, readThreshold: null, revisitDays: null },
    }));
    const settings = settingsOfRow(stored, config.timeZone);
    return toSettings(settings, { emailAddress: caller.email, nextDigestAt: stored?.next_digest_at ?? null, projects }, clock);
  }

  return {
    get,

    async update(caller: AlertCaller, input: SettingsInput) {
      const stored = await repo.find(db, caller.id);
      const next = applySettings(settingsOfRow(stored, config.timeZone), input);
      const choices = input.projects === undefined ? [] : parseChoices(input.projects);
      if (choices.length > 0) {
        const mine = new Set((await deps.memberships(caller.id)).map((p) => p.id));
        // Another project's id answers as a missing one: nothing tells which projects exist.
        const stranger = choices.find((c) => !mine.has(c.appId));
        if (stranger !== undefined) throw failure('app_not_found', `projects: no project ${stranger.appId.slice(0, 64)} of yours`);
      }
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        await repo.save(trx, {
          user_id: caller.id,
          signals: next.signals.join(','),
          read_threshold: next.readThreshold,
          revisit_days: next.revisitDays,
          inbox: next.inbox ? 1 : 0,
          email: next.email,
          time_zone: next.timeZone,
          digest_hour: next.digestHour,
          locale: next.locale,
          next_digest_at: nextDigest(next, stored, now),
          updated_at: now,
        });
        for (const c of choices) {
          await repo.saveChoice(trx, {
            app_id: c.appId,
            user_id: caller.id,
            scope: c.choice.scope,
            signals: c.choice.signals === null ? null : c.choice.signals.join(','),
            read_threshold: c.choice.readThreshold,
            revisit_days: c.choice.revisitDays,
            updated_at: now,
          });
        }
        // Leaving the digest: its waiting lines will not be sent.
        if (stored?.email === 'digest' && next.email !== 'digest') await deps.inbox.dropDigest(trx, caller.id);
      });
      return get(caller);
    },
  };
}

export type AlertSettings = ReturnType<typeof createAlertSettings>;

/**
 * Whether a link's creator is to get the links module's e-mail on a customer's first open of a link
 * that is not directed at that customer (docs/links.md "Alerts"), by the rules the alerts tell a
 * signal with (docs/alerts.md "Who is told"): they are an active member of the project who may see the
 * customer (the Master and Admins every one, a Sales member their own), their choice in the project is
 * not `none`, and their settings take `deck_opened` by instant e-mail. A directed link's open is the
 * alerts' own `deck_opened` signal and is never mailed twice.
 */
export function createFirstOpenMailChoice(ctx: AppContext, deps: { memberships: MembershipsOf }) {
  const db = ctx.database.db;
  return async (userId: number, appId: string, customerOwnerId: number): Promise<boolean> => {
    const member = settingsOfRow(await repo.find(db, userId), ctx.config.timeZone);
    if (member.email !== 'instant') return false;
    const role = (await deps.memberships(userId)).find((m) => m.id === appId)?.role;
    if (role === undefined) return false;
    if (role !== 'Master' && role !== 'Admin' && customerOwnerId !== userId) return false;
    const [choice] = await repo.choicesIn(db, appId, [userId]);
    const effective = effectiveIn(member, choice === undefined ? null : choiceOfRow(choice));
    return effective.scope !== 'none' && effective.signals.has('deck_opened');
  };
}

export type FirstOpenMailChoice = ReturnType<typeof createFirstOpenMailChoice>;
