import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from './ssrf.ts';

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

/** POSTs one signed batch; never throws. */
export function sendWebhook(
  url: string,
  secret: string,
  body: string,
  eventIds: string[],
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve({ ok: false, status: null, error: 'invalid url' });
      return;
    }
    const client = u.protocol === 'https:' ? https : http;
    const t = Math.floor(Date.now() / 1000);
    const req = client.request(
      u,
      {
        method: 'POST',
        lookup: guardedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Rapport-Webhooks/1',
          'x-rapport-signature': signature(secret, body, t),
          'x-rapport-event-ids': eventIds.join(','),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
        });
        res.on('error', (err) => resolve({ ok: false, status: res.statusCode ?? null, error: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, status: null, error: err.message.slice(0, 500) }));
    req.end(body);
  });
}
