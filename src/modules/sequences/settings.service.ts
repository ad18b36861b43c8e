import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { fieldFailure, failure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import type { Actor } from '../access/service.ts';
import { DEFAULT_SETTINGS, type SettingsResponse, type SettingsRow, toSettings } from './mapper.ts';
import { sequencesRepository as repo } from './repository.ts';

/** The send settings as a request changes them: the fields given change. */
export interface SettingsInput {
  timeZone?: string | undefined;
  windowStart?: string | undefined;
  windowEnd?: string | undefined;
  days?: number[] | undefined;
  dailyCap?: number | undefined;
  replyAddress?: string | null | undefined;
  /** A new secret for the inbound mail webhook (the former address stops working). */
  rotateInboundToken?: boolean | undefined;
}

export const DAILY_CAP_MAX = 10_000;

const newToken = () => randomBytes(24).toString('base64url');

/** Whether the runtime knows this IANA zone. */
export function isTimeZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `HH:mm` as minutes of the day; `24:00` ends a window at midnight. */
function minutesOf(value: string, field: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(value.trim());
  const minutes = m === null ? NaN : Number(m[1]) * 60 + Number(m[2]);
  if (m === null || Number(m[2]) > 59 || minutes > 24 * 60) throw fieldFailure(field, 'invalid', `${field} must be HH:mm (00:00 to 24:00)`);
  return minutes;
}

function daysOf(days: number[]): string {
  const set = [...new Set(days)].sort((a, b) => a - b);
  if (set.length === 0 || set.some((d) => !Number.isInteger(d) || d < 1 || d > 7))
    throw fieldFailure('days', 'invalid', 'days must list ISO weekdays from 1 (Monday) to 7 (Sunday), at least one');
  return set.join(',');
}

/**
 * A project's send settings for sequences (docs/sequences.md "Send settings"): the window's zone,
 * hours and days, the daily cap per sending member, the reply address and the inbound mail
 * webhook's secret. No row until first read: then the defaults (the server's zone, 09:00–17:00,
 * Monday to Friday, 200 mails) and a new secret.
 */
export function createSequenceSettings(ctx: AppContext) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, config } = ctx;

  /** The project's settings, made with the defaults on first use. */
  async function forApp(appId: string, executor: Kysely<Database> = db): Promise<SettingsRow> {
    const found = await repo.settings(executor, appId);
    if (found !== undefined) return found;
    await repo.insertSettings(executor, {
      app_id: appId,
      time_zone: isTimeZone(config.timeZone) ? config.timeZone : 'UTC',
      window_start: DEFAULT_SETTINGS.windowStart,
      window_end: DEFAULT_SETTINGS.windowEnd,
      days: DEFAULT_SETTINGS.days.join(','),
      daily_cap: DEFAULT_SETTINGS.dailyCap,
      reply_address: null,
      inbound_token: newToken(),
      updated_by: null,
      updated_at: clock.now(),
    });
    const made = await repo.settings(executor, appId);
    if (made === undefined) throw new Error(`sequence settings of ${appId} not found after insert`);
    return made;
  }

  return {
    forApp,

    /** The settings as Master and Admins read them (with the inbound webhook's address). */
    async get(actor: Actor): Promise<SettingsResponse> {
      return toSettings(await forApp(actor.app.id), config.publicBaseUrl);
    },

    /** Changes the fields given (Master and Admins; the route checks the role). */
    async put(actor: Actor, input: SettingsInput): Promise<SettingsResponse> {
      const current = await forApp(actor.app.id);
      const zone = input.timeZone?.trim();
      if (zone !== undefined && !isTimeZone(zone)) throw failure('time_zone_invalid');
      const start = input.windowStart === undefined ? Number(current.window_start) : minutesOf(input.windowStart, 'windowStart');
      const end = input.windowEnd === undefined ? Number(current.window_end) : minutesOf(input.windowEnd, 'windowEnd');
      if (start >= end) throw fieldFailure('windowEnd', 'invalid', 'The window must end after it starts, within one day');
      const cap = input.dailyCap;
      if (cap !== undefined && (!Number.isInteger(cap) || cap < 1 || cap > DAILY_CAP_MAX))
        throw fieldFailure('dailyCap', 'invalid', `dailyCap must be a whole number from 1 to ${DAILY_CAP_MAX}`);
      const reply = input.replyAddress === undefined ? current.reply_address : (input.replyAddress?.trim() ?? '') || null;
      if (reply !== null && (reply.length > 320 || !isEmail(reply)))
        throw fieldFailure('replyAddress', 'invalid', 'replyAddress must be an e-mail address');
      await repo.updateSettings(db, actor.app.id, {
        time_zone: zone ?? current.time_zone,
        window_start: start,
        window_end: end,
        days: input.days === undefined ? current.days : daysOf(input.days),
        daily_cap: cap ?? Number(current.daily_cap),
        reply_address: reply,
        inbound_token: input.rotateInboundToken === true ? newToken() : current.inbound_token,
        updated_by: actor.userId,
        updated_at: clock.now(),
      });
      return toSettings(await forApp(actor.app.id), config.publicBaseUrl);
    },

    /** The project of an inbound webhook's token, if any. */
    appByInboundToken(token: string): Promise<string | undefined> {
      if (token.length < 16 || token.length > 64) return Promise.resolve(undefined);
      return repo.appByInboundToken(db, token);
    },
  };
}

export type SequenceSettings = ReturnType<typeof createSequenceSettings>;
