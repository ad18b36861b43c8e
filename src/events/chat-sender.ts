import { type AlertLocale, isAlertLocale } from './alert-events.ts';
import { type ChatAlert, type ChatKind, CHAT_KINDS, chatRequest, chatVerdict } from './chat-formats.ts';
import { guardedExchange } from './outbound-http.ts';
import { type SendResult, sendWebhook } from './webhook-sender.ts';

/**
 * Sending to what a `webhooks` row names: an event webhook, or a notification channel
 * (docs/alerts.md "Chat channels"): a chat platform's robot, or a webhook of kind `webhook` that
 * gets the alert's event signed as every webhook delivery is. Through the one guarded client.
 */

/** The columns of a `webhooks` row a delivery needs. */
export interface Receiver {
  purpose: string;
  kind: string;
  url: string;
  secret: string;
  /** A channel's options as stored (JSON: its signals, threshold, language, name); null for an event webhook. */
  options: string | null;
}

/** A delivery's event messages as the relay built them (the interface's shape plus the event id). */
export interface DeliveryMessage {
  id: string;
  event_type: string;
  domainType: string;
  domainId: string;
  body: unknown;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Epoch ms: the signatures' timestamp. */
  now: number;
}

export const isChatKind = (kind: string): kind is ChatKind => (CHAT_KINDS as readonly string[]).includes(kind);

/** A channel's language (its options' `locale`), English when it names none. */
export function receiverLocale(options: string | null): AlertLocale {
  if (options === null) return 'en-US';
  try {
    const locale = (JSON.parse(options) as { locale?: unknown }).locale;
    return isAlertLocale(locale) ? locale : 'en-US';
  } catch {
    return 'en-US';
  }
}

/** Posts one alert to a chat platform and judges its answer; never throws. */
export async function sendChat(
  kind: ChatKind,
  channel: { url: string; secret: string | null },
  alert: ChatAlert,
  locale: AlertLocale,
  opts: SendOptions,
): Promise<SendResult> {
  try {
    const request = chatRequest(kind, channel, alert, locale, opts.now);
    const answer = await guardedExchange(request.url, {
      method: 'POST',
      timeoutMs: opts.timeoutMs,
      allowPrivate: opts.allowPrivate,
      body: request.body,
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
    });
    const verdict = chatVerdict(kind, answer.status, answer.body);
    return { ok: verdict.ok, status: answer.status, error: verdict.error };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, status: null, error: message.slice(0, 500) };
  }
}

/**
 * Sends a delivery's messages to its receiver: a chat channel posts its one alert in its platform's
 * format; an event webhook, or a channel of kind `webhook`, gets the messages as a signed JSON array.
 * Null when a chat channel's alert is no longer stored (nothing to post).
 */
export async function sendToReceiver(
  hook: Receiver,
  delivery: { messages: DeliveryMessage[]; eventIds: string[] },
  opts: SendOptions,
): Promise<SendResult | null> {
  const { messages } = delivery;
  if (hook.purpose === 'alerts' && isChatKind(hook.kind)) {
    const alert = messages[0]?.body as ChatAlert | undefined;
    if (alert === undefined || alert === null || typeof alert !== 'object' || !('words' in alert)) return null;
    return sendChat(
      hook.kind,
      { url: hook.url, secret: hook.secret === '' ? null : hook.secret },
      alert,
      receiverLocale(hook.options),
      opts,
    );
  }
  return sendWebhook(hook.url, hook.secret, JSON.stringify(messages), delivery.eventIds, opts);
}
