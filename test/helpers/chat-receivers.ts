import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

/**
 * Four local servers playing the chat platforms' robots, each checking a message the way its platform
 * does: Slack's incoming webhook (the URL's secret path), WeCom's group robot (the `key` in the URL),
 * DingTalk's custom robot (`timestamp` in ms and `sign` in the query: base64 HMAC-SHA256 of
 * "timestamp\nsecret" keyed by the secret, within an hour), Feishu's custom bot (`timestamp` in s
 * and `sign` in the body: base64 HMAC-SHA256 keyed by "timestamp\nsecret" over nothing, within an
 * hour). Each answers as its platform does, and keeps the messages it accepted and how many it refused.
 */

export interface ChatReceiver {
  url: string;
  /** Accepted messages, as parsed JSON. */
  accepted: Record<string, unknown>[];
  refused: number;
  /** The next answers, before checking (e.g. a rate limit, a 410). */
  script: ((body: Record<string, unknown>) => { status: number; body: string } | null)[];
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type Check = (url: URL, body: Record<string, unknown>) => boolean;
type Answers = { ok: { status: number; body: string }; refused: { status: number; body: string } };

async function receiver(path: string, check: Check, answers: Answers): Promise<ChatReceiver> {
  const r: ChatReceiver = { url: '', accepted: [], refused: 0, script: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // Not JSON: refused below.
      }
      const scripted = r.script.shift()?.(body) ?? null;
      const url = new URL(req.url ?? '/', 'http://local');
      const answer = scripted ?? (req.method === 'POST' && check(url, body) ? answers.ok : answers.refused);
      if (answer === answers.ok) r.accepted.push(body);
      else r.refused += 1;
      res.writeHead(answer.status, { 'content-type': answer.body.startsWith('{') ? 'application/json' : 'text/plain' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  r.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}${path}`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}

const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

export async function startChatReceivers(secrets: { slackPath: string; wecomKey: string; dingtalk: string; feishu: string }) {
  const slack = await receiver(
    `/services/T0/B0/${secrets.slackPath}`,
    (url, body) => url.pathname === `/services/T0/B0/${secrets.slackPath}` && typeof body.text === 'string',
    {
      ok: { status: 200, body: 'ok' },
      refused: { status: 404, body: 'no_service' },
    },
  );
  const wecom = await receiver(
    `/cgi-bin/webhook/send?key=${secrets.wecomKey}`,
    (url, body) =>
      url.searchParams.get('key') === secrets.wecomKey &&
      body.msgtype === 'markdown' &&
      Buffer.byteLength(String((body.markdown as { content?: unknown })?.content ?? '')) <= 4096,
    { ok: json(200, { errcode: 0, errmsg: 'ok' }), refused: json(200, { errcode: 93000, errmsg: 'invalid webhook url' }) },
  );
  const dingtalk = await receiver(
    '/robot/send?access_token=ding-token',
    (url) => {
      const ts = Number(url.searchParams.get('timestamp'));
      const sign = url.searchParams.get('sign') ?? '';
      const expected = createHmac('sha256', secrets.dingtalk).update(`${ts}\n${secrets.dingtalk}`).digest('base64');
      return url.searchParams.get('access_token') === 'ding-token' && Math.abs(Date.now() - ts) < HOUR_MS && equal(sign, expected);
    },
    { ok: json(200, { errcode: 0, errmsg: 'ok' }), refused: json(200, { errcode: 310000, errmsg: 'sign not match' }) },
  );
  const feishu = await receiver(
    '/open-apis/bot/v2/hook/feishu-hook',
    (_url, body) => {
      const ts = Number(body.timestamp);
      const expected = createHmac('sha256', `${ts}\n${secrets.feishu}`).update('').digest('base64');
      return Math.abs(Date.now() / 1000 - ts) < HOUR_MS / 1000 && equal(String(body.sign ?? ''), expected) && body.msg_type === 'post';
    },
    {
      ok: json(200, { code: 0, msg: 'success', data: {} }),
      refused: json(200, { code: 19021, msg: 'sign match fail or timestamp is not within one hour from current time', data: {} }),
    },
  );
  return {
    slack,
    wecom,
    dingtalk,
    feishu,
    close: () => Promise.all([slack.close(), wecom.close(), dingtalk.close(), feishu.close()]),
  };
}
