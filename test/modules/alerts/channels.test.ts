// lanes: sqlite postgres
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Relay } from '../../../src/events/relay.ts';
import { startChatReceivers } from '../../helpers/chat-receivers.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { startReceiver } from '../../helpers/receiver.ts';

/**
 * Notification channels through HTTP: made, listed (URLs and secrets masked), changed, turned off and
 * on, removed, tested, by the Master and Admins only; and the alerts they post, in each platform's own
 * format and signature, to four local robots that check them as their platform does (and a webhook
 * that checks Rapport's signature), once per signal, retried through the relay, disabled by a 410.
 */
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let p: HistoryProject;
let other: HistoryProject;
const SECRETS = {
  slackPath: 'XXslackXXtokenXX',
  wecomKey: 'wecom-key-0001',
  dingtalk: 'SECdingtalk-secret-0001',
  feishu: 'feishu-secret-0001',
};
let robots: Awaited<ReturnType<typeof startChatReceivers>>;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let relay: Relay;

interface Channel {
  id: string;
  kind: string;
  name: string | null;
  url: string;
  secret: string | null;
  events: string[];
  readThreshold: number;
  locale: string;
  status: string;
  disabledReason: string | null;
}

const base = (app = p.appId) => `/api/v1.7/app/${app}/notification-channels`;

async function make(body: Record<string, unknown>, token = p.master.token) {
  const res = (await t.server.api.post(base(), body, { token })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data as Channel;
}

const pass = () => t.server.services.alerts.evaluator.pass();

/** Relay passes until `done` holds (each pass sends what is due). */
async function relayUntil(done: () => boolean, passes = 50) {
  for (let i = 0; i < passes && !done(); i += 1) {
    await relay.tick();
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(done()).toBe(true);
}

async function mention(customerId: string, who: number) {
  const res = await t.server.api.post(
    `/api/v1.7/app/${p.appId}/customer/${customerId}/notes`,
    { content: `Quote ready @[you](member:${who})` },
    { token: p.master.token },
  );
  expect(res.json().status, res.body).toBe(1);
}

function verifyRapport(secret: string, header: string, raw: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

beforeAll(async () => {
  p = await historyProject(t.server);
  other = await historyProject(t.server);
  await addCustomers(t.server, p, [{ id: 'ch-ada', owner: p.sales.id, name: 'Ada <!channel> [click](http://evil.example)' }]);
  robots = await startChatReceivers(SECRETS);
  hook = await startReceiver();
  relay = new Relay(t.server.ctx, { retryBaseMs: 1, retryMaxMs: 5 });
  await pass();
});

afterAll(async () => {
  await robots.close();
  await hook.close();
});

describe('notification channels', () => {
  let ids: Record<string, string> = {};
  let webhookSecret = '';

  it('are made by the Master and Admins, answered with the URL and secret masked (a generated one shown once)', async () => {
    const slack = await make({
      kind: 'slack',
      url: robots.slack.url,
      name: 'Sales floor',
      events: 'deck_opened,deck_read,hot_lead,task_due,mention',
    });
    expect(slack).toMatchObject({
      kind: 'slack',
      name: 'Sales floor',
      secret: null,
      events: ['deck_opened', 'deck_read', 'hot_lead', 'task_due', 'mention'],
      readThreshold: 50,
      locale: 'en-US',
      status: 'active',
    });
    expect(slack.url).toBe(`${new URL(robots.slack.url).origin}/…${robots.slack.url.slice(-4)}`);
    expect(slack.url).not.toContain(SECRETS.slackPath);
    // By default a channel posts the customers' signals; a task due and a mention are one member's, posted when asked for.
    const wecom = await make({ kind: 'WeCom', url: robots.wecom.url }, p.admin.token);
    expect(wecom).toMatchObject({ kind: 'wecom', locale: 'zh-CN', events: ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead'] });
    const more = await t.server.api.put(
      `${base()}/${wecom.id}`,
      { events: 'deck_opened,deck_read,hot_lead,mention' },
      { token: p.admin.token },
    );
    expect(more.json().data.events).toEqual(['deck_opened', 'deck_read', 'hot_lead', 'mention']);
    const ding = await make({
      kind: 'dingtalk',
      url: robots.dingtalk.url,
      secret: SECRETS.dingtalk,
      locale: 'en-US',
      events: 'mention,deck_read',
    });
    expect(ding.secret).toBe(`****${SECRETS.dingtalk.slice(-4)}`);
    const feishu = await make({ kind: 'feishu', url: robots.feishu.url, secret: SECRETS.feishu, events: 'mention,deck_read' });
    expect(feishu.events).toEqual(['mention', 'deck_read']);
    const webhook = await make({ kind: 'webhook', url: hook.url, events: 'mention' });
    expect(webhook.secret).toMatch(/^whsec_/);
    webhookSecret = webhook.secret as string;
    ids = { slack: slack.id, wecom: wecom.id, dingtalk: ding.id, feishu: feishu.id, webhook: webhook.id };
    const list = (await t.server.api.get(base(), { token: p.admin.token })).json().data as Channel[];
    expect(list.map((c) => c.kind)).toEqual(['slack', 'wecom', 'dingtalk', 'feishu', 'webhook']);
    expect(JSON.stringify(list)).not.toContain(SECRETS.dingtalk);
    expect(JSON.stringify(list)).not.toContain(webhook.secret as string);
    expect(list.find((c) => c.kind === 'webhook')?.secret).toMatch(/^\*\*\*\*/);
    // Not among the project's event webhooks.
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/webhooks`, { token: p.master.token })).json().data).toEqual([]);
  });

  it('refuse bad input and strangers: Sales members, another project, bad kinds, secrets and signals', async () => {
    expect((await t.server.api.post(base(), { kind: 'slack', url: robots.slack.url }, { token: p.sales.token })).statusCode).toBe(403);
    expect((await t.server.api.get(base(), { token: p.sales.token })).statusCode).toBe(403);
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'teams', url: robots.slack.url }, 'channel_kind_invalid'],
      [{ url: robots.slack.url }, 'channel_kind_invalid'],
      [{ kind: 'slack' }, 'url_required'],
      [{ kind: 'slack', url: 'ftp://example.com/x' }, 'url_invalid'],
      [{ kind: 'slack', url: robots.slack.url, secret: 'nope' }, 'channel_secret_invalid'],
      [{ kind: 'dingtalk', url: robots.dingtalk.url, secret: 'with space' }, 'channel_secret_invalid'],
      [{ kind: 'slack', url: robots.slack.url, events: 'mention,calls' }, 'signals_invalid'],
      [{ kind: 'slack', url: robots.slack.url, events: ' , ' }, 'signals_invalid'],
      [{ kind: 'slack', url: robots.slack.url, read_threshold: 101 }, 'read_threshold_invalid'],
      [{ kind: 'slack', url: robots.slack.url, locale: 'de' }, 'locale_invalid'],
      [{ kind: 'slack', url: robots.slack.url, name: 'n'.repeat(101) }, 'channel_name_invalid'],
    ];
    for (const [body, code] of cases)
      expect((await t.server.api.post(base(), body, { token: p.master.token })).json(), JSON.stringify(body)).toMatchObject({
        status: 0,
        code,
      });
    // Another project's channel answers as a missing one.
    for (const call of [
      () => t.server.api.put(`${base(other.appId)}/${ids.slack}`, { name: 'x' }, { token: other.master.token }),
      () => t.server.api.delete(`${base(other.appId)}/${ids.slack}`, { token: other.master.token }),
      () => t.server.api.post(`${base(other.appId)}/${ids.slack}/test`, undefined, { token: other.master.token }),
    ]) {
      expect((await call()).json()).toMatchObject({ status: 0, code: 'channel_not_found' });
    }
    // An event webhook's id is no channel, and a channel's no webhook.
    const ev = (await t.server.api.post(`/api/v1.7/app/${p.appId}/webhooks`, { url: hook.url }, { token: p.master.token })).json().data;
    expect((await t.server.api.delete(`${base()}/${ev.id}`, { token: p.master.token })).json()).toMatchObject({
      code: 'channel_not_found',
    });
    expect((await t.server.api.delete(`/api/v1.7/app/${p.appId}/webhooks/${ids.slack}`, { token: p.master.token })).json()).toMatchObject({
      code: 'webhook_not_found',
    });
    expect((await t.server.api.delete(`/api/v1.7/app/${p.appId}/webhooks/${ev.id}`, { token: p.master.token })).json().status).toBe(1);
    expect((await t.server.api.put(`${base()}/${ids.slack}`, { kind: 'wecom' }, { token: p.master.token })).json()).toMatchObject({
      code: 'Bad Request',
    });
  });

  it('post a test message in each platform’s format and signature, and say what the platform answered', async () => {
    for (const kind of ['slack', 'wecom', 'dingtalk', 'feishu', 'webhook']) {
      const res = (await t.server.api.post(`${base()}/${ids[kind]}/test`, undefined, { token: p.admin.token })).json();
      expect(res, kind).toMatchObject({ status: 1, data: { ok: true, status: 200, error: null } });
    }
    expect(
      robots.slack.accepted.length + robots.wecom.accepted.length + robots.dingtalk.accepted.length + robots.feishu.accepted.length,
    ).toBe(4);
    expect(JSON.stringify(robots.wecom.accepted[0])).toContain('Rapport：测试消息');
    expect(hook.received[0]?.events[0]).toMatchObject({ event_type: 'alert.test', domainType: 'Alert', domainId: ids.webhook });
    // A wrong secret: the robot refuses, and the test says why.
    const wrong = await make({ kind: 'dingtalk', url: robots.dingtalk.url, secret: 'SECwrong' });
    expect((await t.server.api.post(`${base()}/${wrong.id}/test`, undefined, { token: p.master.token })).json().data).toMatchObject({
      ok: false,
      status: 200,
      error: 'dingtalk 310000: sign not match',
    });
    expect((await t.server.api.delete(`${base()}/${wrong.id}`, { token: p.master.token })).json()).toEqual({ status: 1, data: true });
    for (const r of [robots.slack, robots.wecom, robots.dingtalk, robots.feishu]) {
      r.accepted.length = 0;
      r.refused = 0;
    }
    hook.received.length = 0;
  });

  it('post each alert once, on every channel that takes its signal, with a valid signature, escaped', async () => {
    await mention('ch-ada', p.admin.id);
    await pass();
    await relayUntil(
      () =>
        robots.slack.accepted.length === 1 &&
        robots.wecom.accepted.length === 1 &&
        robots.dingtalk.accepted.length === 1 &&
        robots.feishu.accepted.length === 1 &&
        hook.received.length === 1,
    );
    // Again: nothing more (once per signal and channel).
    await pass();
    for (let i = 0; i < 5; i += 1) await relay.tick();
    expect([robots.slack, robots.wecom, robots.dingtalk, robots.feishu].map((r) => r.accepted.length)).toEqual([1, 1, 1, 1]);
    expect(robots.dingtalk.refused + robots.feishu.refused + robots.slack.refused + robots.wecom.refused).toBe(0);
    const slackText = JSON.stringify(robots.slack.accepted[0]);
    // The team's words: who mentioned whom.
    expect(slackText).toMatch(/mentioned (?!you)/);
    expect(slackText).toContain('&lt;!channel&gt;');
    expect(slackText).not.toContain('<!channel>');
    expect(JSON.stringify(robots.dingtalk.accepted[0])).not.toContain('[click](http://evil.example)');
    expect(JSON.stringify(robots.wecom.accepted[0])).toContain('在笔记中提到了 ');
    const [event] = hook.received[0]?.events ?? [];
    expect(event).toMatchObject({ event_type: 'create', domainType: 'Alert', body: { signal: 'mention', customerId: 'ch-ada' } });
    expect(verifyRapport(webhookSecret, String(hook.received[0]?.headers['x-rapport-signature']), hook.received[0]?.body ?? '')).toBe(true);
  });

  it('skip a channel turned off or that does not take the signal; a robot that fails is retried; a 410 turns the channel off', async () => {
    expect(
      (await t.server.api.put(`${base()}/${ids.feishu}`, { events: 'deck_read' }, { token: p.master.token })).json().data.events,
    ).toEqual(['deck_read']);
    const off = (await t.server.api.put(`${base()}/${ids.webhook}`, { active: 0 }, { token: p.master.token })).json().data;
    expect(off).toMatchObject({ status: 'disabled', disabledReason: 'turned off' });
    robots.wecom.script.push(() => ({ status: 200, body: JSON.stringify({ errcode: 45009, errmsg: 'api freq out of limit' }) }));
    robots.slack.script.push(() => ({ status: 410, body: 'channel_is_archived' }));
    await mention('ch-ada', p.admin.id);
    await pass();
    await relayUntil(() => robots.wecom.accepted.length === 2 && robots.dingtalk.accepted.length === 2);
    expect(robots.wecom.refused).toBe(1);
    expect(robots.feishu.accepted.length).toBe(1);
    expect(hook.received.length).toBe(1);
    const list = (await t.server.api.get(base(), { token: p.master.token })).json().data as Channel[];
    expect(list.find((c) => c.id === ids.slack)).toMatchObject({ status: 'disabled', disabledReason: 'the receiver answered 410 Gone' });
    // Turned on again, it posts what comes next.
    expect((await t.server.api.put(`${base()}/${ids.slack}`, { active: 1 }, { token: p.master.token })).json().data.status).toBe('active');
    expect((await t.server.api.delete(`${base()}/${ids.slack}`, { token: p.master.token })).json()).toEqual({ status: 1, data: true });
    expect((await t.server.api.delete(`${base()}/${ids.slack}`, { token: p.master.token })).json()).toMatchObject({
      code: 'channel_not_found',
    });
  });
});
