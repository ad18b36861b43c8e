import { parseServerTime } from '../../shared/time/serverTime.ts';

/** The signals an alert is about (docs/alerts.md "Signals"), in the order the settings list them. */
export const SIGNALS = ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead', 'task_due', 'mention'] as const;
export type Signal = (typeof SIGNALS)[number];

/** The signals about customers: what a chat channel posts unless told otherwise (the others are one member's). */
export const CUSTOMER_SIGNALS: readonly Signal[] = ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead'];

/** The days without a view a customer's return must follow to be told (`revisit_days`), as the server takes them. */
export const REVISIT_DAYS = { min: 1, max: 90 } as const;

export const EMAIL_MODES = ['off', 'instant', 'digest'] as const;
export const SCOPES = ['mine', 'all', 'none'] as const;

/** The chat platforms a channel posts to, and a plain webhook. */
export const CHANNEL_KINDS = ['wecom', 'dingtalk', 'feishu', 'slack', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Whether a kind takes a secret: DingTalk and Feishu sign with one (optional), a webhook has its own; Slack and WeCom none (the URL is the credential). */
export function takesSecret(kind: string): boolean {
  return kind === 'dingtalk' || kind === 'feishu' || kind === 'webhook';
}

/** The language a channel's messages are in unless chosen: Chinese on the Chinese platforms (as the server). */
export function defaultChannelLocale(kind: string): 'zh-CN' | 'en-US' {
  return kind === 'wecom' || kind === 'dingtalk' || kind === 'feishu' ? 'zh-CN' : 'en-US';
}

/** The IANA time zones the browser knows, with `current` among them (a zone the server accepted that the browser lacks). */
export function timeZones(current: string | undefined): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zones = new Set(known);
  if (current) zones.add(current);
  zones.add(browserTimeZone());
  return [...zones].sort();
}

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** An hour of the day as a clock shows it: 8 → "08:00". */
export function hourText(hour: number): string {
  return `${String(hour).padStart(2, '0')}:00`;
}

/** A list of signals as the API takes it, in the settings' order. */
export function signalList(signals: readonly string[]): string {
  return SIGNALS.filter((s) => signals.includes(s)).join(',');
}

/** A server time (`yyyy-MM-dd HH:mm:ss` in its TIME_ZONE) as a clock in `zone` shows it, with the zone: "2026-11-28 18:00 (Asia/Shanghai)". */
export function zonedTime(serverTime: string, zone: string, language: string): string {
  const at = parseServerTime(serverTime);
  if (!at) return serverTime;
  try {
    const text = new Intl.DateTimeFormat(language, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' }).format(at.valueOf());
    return `${text} (${zone})`;
  } catch {
    return serverTime;
  }
}
