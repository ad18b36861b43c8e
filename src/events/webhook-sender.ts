import { createHmac } from 'node:crypto';
import { guardedRequest } from './outbound-http.ts';

export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** POSTs one signed batch through the guarded client (outbound-http.ts); never throws. */
export async function sendWebhook(
  url: string,
  secret: string,
  body: string,
  eventIds: string[],
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const t = Math.floor(Date.now() / 1000);
  try {
    const status = await guardedRequest(url, {
      method: 'POST',
      timeoutMs: opts.timeoutMs,
      allowPrivate: opts.allowPrivate,
      body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Rapport-Webhooks/1',
        'x-rapport-signature': signature(secret, body, t),
        'x-rapport-event-ids': eventIds.join(','),
      },
    });
    const ok = status >= 200 && status < 300;
    return { ok, status, error: ok ? null : `HTTP ${status}` };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, status: null, error: message.slice(0, 500) };
  }
}
