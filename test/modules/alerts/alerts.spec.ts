/** The pure parts of alerts: chat formats and signatures, the words, settings, the feed's sources, the digest's hour. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chatRequest, chatVerdict, dingtalkSign, feishuSign, markdownEscape, slackEscape } from '../../../src/events/chat-formats.ts';
import { Clock } from '../../../src/lib/time.ts';
import { nextLocalHour, zoneClock } from '../../../src/lib/zones.ts';
import { applySettings, defaultSettings, effectiveIn, parseChoices } from '../../../src/modules/alerts/settings.ts';
import { HOT_LEAD_EVENT, stepsOf } from '../../../src/modules/alerts/sources.ts';
import { excerptOf, reasonFactsOf, wordsOf } from '../../../src/modules/alerts/words.ts';

const at = (iso: string) => Date.parse(iso);
const alert = {
  words: {
    'en-US': { title: 'Ada read 8 of 10 pages', text: 'Ada <!channel> [x](http://evil.example) `code`' },
    'zh-CN': { title: 'Ada 阅读了', text: '已读 80%' },
  },
  url: 'https://rapport.example/console/p/app/customers/c1',
};

describe('chat formats', () => {
  it("DingTalk: timestamp (ms) and sign (base64 HMAC-SHA256 of 'timestamp\\nsecret' keyed by the secret) in the query; markdown", () => {
    const now = 1_700_000_000_123;
    const req = chatRequest(
      'dingtalk',
      { url: 'https://oapi.dingtalk.com/robot/send?access_token=abc', secret: 'SECxyz' },
      alert,
      'en-US',
      now,
    );
    const url = new URL(req.url);
    expect(url.searchParams.get('access_token')).toBe('abc');
    expect(url.searchParams.get('timestamp')).toBe(String(now));
    const expected = createHmac('sha256', 'SECxyz').update(`${now}\nSECxyz`).digest('base64');
    expect(url.searchParams.get('sign')).toBe(expected);
    expect(dingtalkSign('SECxyz', now)).toBe(expected);
    // A base64 signature's + / = travel percent-encoded, as DingTalk's urlEncode does.
    expect(req.url).not.toMatch(/sign=[^&]*[+/=]/);
    const body = JSON.parse(req.body);
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.title).toBe('Ada read 8 of 10 pages');
    expect(body.markdown.text).toContain('#### Ada read 8 of 10 pages');
    // User text cannot make a link or a mention.
    expect(body.markdown.text).not.toContain('[x](http://evil.example)');
    expect(body.markdown.text).toContain('[Open in Rapport](https://rapport.example/console/p/app/customers/c1)');
    expect(
      chatRequest('dingtalk', { url: 'https://oapi.dingtalk.com/robot/send?access_token=abc', secret: null }, alert, 'en-US', now).url,
    ).toBe('https://oapi.dingtalk.com/robot/send?access_token=abc');
  });

  it("Feishu: timestamp (s) and sign (base64 HMAC-SHA256 keyed by 'timestamp\\nsecret' over nothing) in the body; a post", () => {
    const now = 1_700_000_000_999;
    const body = JSON.parse(
      chatRequest('feishu', { url: 'https://open.feishu.cn/open-apis/bot/v2/hook/t', secret: 's3cret' }, alert, 'zh-CN', now).body,
    );
    expect(body.timestamp).toBe('1700000000');
    expect(body.sign).toBe(createHmac('sha256', '1700000000\ns3cret').update('').digest('base64'));
    expect(feishuSign('s3cret', 1_700_000_000)).toBe(body.sign);
    expect(body.msg_type).toBe('post');
    expect(body.content.post.zh_cn.title).toBe('Ada 阅读了');
    expect(body.content.post.zh_cn.content[1][0]).toEqual({ tag: 'a', text: '在 Rapport 中查看', href: alert.url });
  });

  it('WeCom: markdown content, the key in the URL, within 4,096 bytes', () => {
    const long = { ...alert, words: { 'en-US': { title: 'T', text: '字'.repeat(5000) } } };
    const req = chatRequest('wecom', { url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k', secret: null }, long, 'en-US', 0);
    const body = JSON.parse(req.body);
    expect(req.url).toBe('https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k');
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.content.startsWith('**T**')).toBe(true);
    expect(Buffer.byteLength(body.markdown.content)).toBeLessThanOrEqual(4096);
  });

  it('Slack: text and blocks, with &, < and > escaped (no <!channel>, no link of the user)', () => {
    const body = JSON.parse(chatRequest('slack', { url: 'https://hooks.slack.com/services/T/B/X', secret: null }, alert, 'en-US', 0).body);
    expect(body.text).toContain('&lt;!channel&gt;');
    expect(body.blocks[0].text.type).toBe('mrkdwn');
    expect(body.blocks[0].text.text).not.toContain('<!channel>');
    expect(body.blocks[1].elements[0].text).toBe(`<${alert.url}|Open in Rapport>`);
    expect(slackEscape('a & b\n<c>')).toBe('a &amp; b &lt;c&gt;');
    expect(markdownEscape('[a](b) <@all> `x`\n# h')).toBe('［a］(b) ‹@all› ˋxˋ # h');
  });

  it('judges answers the way each platform says', () => {
    expect(chatVerdict('slack', 200, 'ok').ok).toBe(true);
    expect(chatVerdict('slack', 404, 'no_service')).toMatchObject({ ok: false, error: 'HTTP 404: no_service' });
    expect(chatVerdict('dingtalk', 200, '{"errcode":0,"errmsg":"ok"}').ok).toBe(true);
    expect(chatVerdict('dingtalk', 200, '{"errcode":310000,"errmsg":"sign not match"}')).toMatchObject({
      ok: false,
      error: 'dingtalk 310000: sign not match',
    });
    expect(chatVerdict('wecom', 200, '{"errcode":93000,"errmsg":"invalid webhook url"}').ok).toBe(false);
    expect(chatVerdict('feishu', 200, '{"code":0,"msg":"success"}').ok).toBe(true);
    expect(chatVerdict('feishu', 200, '{"StatusCode":0}').ok).toBe(true);
    expect(chatVerdict('feishu', 200, '{"code":19021,"msg":"sign match fail"}').ok).toBe(false);
    expect(chatVerdict('wecom', 200, 'not json').ok).toBe(false);
  });
});

describe('words', () => {
  it('say a reading as DocSend does: pages of the total and the time, in both languages', () => {
    const facts = { signal: 'deck_read' as const, customer: 'Ada', link: 'Pricing', pagesRead: 8, pageCount: 10, seconds: 360 };
    expect(wordsOf(facts, 'en-US').title).toBe("Ada read 8 of 10 pages of 'Pricing' (6 min)");
    expect(wordsOf(facts, 'en-US').text).toBe("80% of 'Pricing' read, in 6 min.");
    expect(wordsOf(facts, 'zh-CN').title).toBe('Ada 阅读了《Pricing》10 页中的 8 页（6 分钟）');
    expect(wordsOf({ ...facts, seconds: 42 }, 'en-US').title).toContain('(42 s)');
    expect(wordsOf({ signal: 'deck_opened', customer: null, link: 'Deck' }, 'en-US').title).toBe("A customer opened 'Deck'");
    // A mention speaks to the member told, and of them to the team (channels, events).
    const mention = { signal: 'mention' as const, customer: 'Ada', author: 'Li Lei', mentioned: 'Wang Wu', excerpt: 'call her' };
    expect(wordsOf(mention, 'en-US').title).toBe('Li Lei mentioned you');
    expect(wordsOf(mention, 'en-US', 'team').title).toBe('Li Lei mentioned Wang Wu');
    expect(wordsOf(mention, 'zh-CN', 'team').title).toBe('Li Lei 在笔记中提到了 Wang Wu');
  });

  it("make a note's excerpt plain: mentions as @label, links as their text", () => {
    expect(excerptOf('Hi @[Li Lei](member:12), see [the quote](https://x.example) **now**')).toBe('Hi @Li Lei, see the quote now');
    expect(Array.from(excerptOf('长'.repeat(500))).length).toBe(140);
  });
});

describe('settings', () => {
  it('default to every signal in the inbox and no e-mail; a change is checked field by field', () => {
    const d = defaultSettings('Asia/Shanghai');
    expect(d).toMatchObject({ inbox: true, email: 'off', timeZone: 'Asia/Shanghai', digestHour: 8, readThreshold: 50, locale: 'en-US' });
    expect(applySettings(d, { signals: 'mention, TASK_DUE', email: 'digest', digest_hour: 7 })).toMatchObject({
      signals: ['task_due', 'mention'],
      email: 'digest',
      digestHour: 7,
    });
    expect(applySettings(d, { signals: '' }).signals).toEqual([]);
    for (const [input, code] of [
      [{ signals: 'deck_opened,nope' }, 'signals_invalid'],
      [{ read_threshold: 101 }, 'read_threshold_invalid'],
      [{ email: 'weekly' }, 'email_mode_invalid'],
      [{ time_zone: 'Mars/Olympus' }, 'time_zone_invalid'],
      [{ digest_hour: 24 }, 'digest_hour_invalid'],
      [{ locale: 'fr-FR' }, 'locale_invalid'],
    ] as const) {
      expect(() => applySettings(d, input)).toThrow(expect.objectContaining({ code }));
    }
  });

  it("per project: a scope and optionally signals and a threshold of the project's own", () => {
    const choices = parseChoices('[{"app_id":"a","scope":"all","signals":"deck_read","read_threshold":80},{"app_id":"b","scope":"none"}]');
    expect(choices[0]).toEqual({ appId: 'a', choice: { scope: 'all', signals: ['deck_read'], readThreshold: 80, revisitDays: null } });
    const eff = effectiveIn(defaultSettings('UTC'), choices[0]?.choice ?? null);
    expect([...eff.signals]).toEqual(['deck_read']);
    expect(eff.readThreshold).toBe(80);
    expect(() => parseChoices('{"app_id":"a"}')).toThrow(expect.objectContaining({ code: 'projects_invalid' }));
    expect(() => parseChoices([{ app_id: 'a' }, { app_id: 'a' }])).toThrow(expect.objectContaining({ code: 'projects_invalid' }));
    expect(() => parseChoices([{ app_id: 'a', scope: 'everyone' }])).toThrow(expect.objectContaining({ code: 'scope_invalid' }));
    expect(() => parseChoices(Array.from({ length: 201 }, (_, i) => ({ app_id: `p${i}` })))).toThrow(
      expect.objectContaining({ code: 'projects_invalid' }),
    );
  });
});

describe('sources', () => {
  const clock = new Clock('UTC');
  const event = (domainType: string, eventType: string, body: unknown) => ({
    id: 'e1',
    seq: 1,
    appId: 'app',
    event_type: eventType,
    domainType,
    domainId: 'd1',
    body,
    createdAt: at('2026-11-02T10:00:00Z'),
  });

  it('read a reading from the view records, a mention per member mentioned (not its author), a task due for its assignee', () => {
    const view = (action: string) =>
      event('BehaviourLog', 'create', {
        action,
        customerId: 'c1',
        svcUserId: '7',
        when: '2026-11-02 10:00:00',
        content: JSON.stringify({ linkId: 'l1', linkViewLogId: 'v1' }),
      });
    expect(stepsOf(view('link_view_log'), clock)).toEqual([
      { kind: 'open', appId: 'app', viewId: 'v1', linkId: 'l1', customerId: 'c1', owner: 7, at: at('2026-11-02T10:00:00Z') },
    ]);
    expect(stepsOf(view('file_view_duration'), clock)[0]).toMatchObject({ kind: 'page', viewId: 'v1' });
    expect(stepsOf(view('link_leave_log'), clock)[0]).toMatchObject({ kind: 'leave', viewId: 'v1' });
    expect(stepsOf(view('call'), clock)).toEqual([]);
    const note = stepsOf(
      event('Note', 'create', { id: 'n1', customerId: 'c1', authorId: 3, content: 'ping @[B](member:4)', newMentions: [3, 4] }),
      clock,
    );
    expect(note).toHaveLength(1);
    expect(note[0]).toMatchObject({ kind: 'signal', draft: { signal: 'mention', key: 'mention:n1:4', concerned: [4], personal: true } });
    const due = stepsOf(
      event('Task', 'due', { id: 't1', customerId: 'c1', assigneeId: 5, title: 'Call', dueAt: '2026-11-02 10:00:00' }),
      clock,
    );
    expect(due[0]).toMatchObject({ draft: { signal: 'task_due', key: 'task_due:t1:2026-11-02 10:00:00', concerned: [5] } });
    expect(stepsOf(event('Task', 'update', { id: 't1' }), clock)).toEqual([]);
  });

  it("take hot leads from the scoring module's event: one signal per customer and day, to its owner", () => {
    const hot = stepsOf(
      event(HOT_LEAD_EVENT.domainType, HOT_LEAD_EVENT.eventType, {
        id: 'c1',
        svcUserId: '7',
        score: 81.6,
        scoreReasons: ['read 8 of 10 pages'],
      }),
      clock,
    );
    expect(hot[0]).toMatchObject({
      draft: {
        signal: 'hot_lead',
        key: 'hot_lead:c1:2026-11-02',
        concerned: [7],
        personal: false,
        data: { score: 81.6, reasons: ['read 8 of 10 pages'] },
      },
    });
  });

  it("word a hot lead's reasons in Chinese from their structured form; without it (or a broken one), as the English given", () => {
    const reasons = [
      "read 3 of 3 pages of 'Pricing' twice since yesterday",
      'came back 3 times today',
      'spent 2 min on key page 2 of a file on Monday',
    ];
    const reasonDetails = [
      { kind: 'deck_read', count: 2, title: 'Pricing', pages: 3, pageCount: 3, when: { kind: 'yesterday', day: '2026-11-01' } },
      { kind: 'return', count: 3, when: { kind: 'today', day: '2026-11-02' } },
      { kind: 'key_page', count: 1, keyPages: [2], seconds: 130, when: { kind: 'weekday', day: '2026-10-26' } },
    ];
    const [step] = stepsOf(
      event(HOT_LEAD_EVENT.domainType, HOT_LEAD_EVENT.eventType, { id: 'c1', score: 24, scoreReasons: reasons, reasonDetails }),
      clock,
    );
    const data = step?.kind === 'signal' ? step.draft.data : {};
    expect(data.reasonDetails).toHaveLength(3);
    const hot = { signal: 'hot_lead' as const, customer: 'Ada', score: 24, reasons, details: reasonFactsOf(data.reasonDetails, 3) };
    expect(wordsOf(hot, 'zh-CN').text).toBe(
      '评分 24：自昨天起阅读了《Pricing》3 页中的 3 页 2 次；今天再次回来阅读 3 次；周一在《一个文件》的重点页 2 上停留 2 分钟',
    );
    expect(wordsOf(hot, 'en-US').text).toBe(`Score 24: ${reasons.join('; ')}`);
    const single = { kind: 'form', count: 1, when: { kind: 'date', day: '2026-10-01' } };
    expect(wordsOf({ ...hot, reasons: ['x'], details: reasonFactsOf([single], 3) }, 'zh-CN').text).toBe(
      '评分 24：2026-10-01 在网站上填写了表单',
    );
    // A structured form that is not the reasons' (junk, or another count): the English words stand.
    const broken = stepsOf(
      event(HOT_LEAD_EVENT.domainType, HOT_LEAD_EVENT.eventType, {
        id: 'c1',
        score: 24,
        scoreReasons: reasons,
        reasonDetails: [{ kind: 1 }],
      }),
      clock,
    );
    expect(broken[0]?.kind === 'signal' ? broken[0].draft.data : {}).toEqual({ score: 24, reasons });
    expect(wordsOf({ ...hot, details: undefined }, 'zh-CN').text).toBe(`评分 24：${reasons.join('；')}`);
  });

  it("tell a hot lead's score to one decimal, as the customer's page shows it: 'Score 10.4', never 'Score 10'", () => {
    const [step] = stepsOf(event(HOT_LEAD_EVENT.domainType, HOT_LEAD_EVENT.eventType, { id: 'c1', svcUserId: '7', score: 10.44 }), clock);
    const data = step?.kind === 'signal' ? step.draft.data : {};
    expect(data).toEqual({ score: 10.4, reasons: [] });
    const facts = {
      signal: 'hot_lead' as const,
      customer: 'Ada',
      score: data.score as number,
      reasons: ["read 3 of 3 pages of 'Pricing' today"],
    };
    expect(wordsOf(facts, 'en-US').text).toBe("Score 10.4: read 3 of 3 pages of 'Pricing' today");
    expect(wordsOf(facts, 'zh-CN').text).toContain('评分 10.4：');
  });
});

describe("the digest's hour", () => {
  it("is the member's local hour, the next one after now, across a daylight-saving change", () => {
    const shanghai = zoneClock('Asia/Shanghai') as Clock;
    expect(nextLocalHour(shanghai, at('2026-11-02T00:30:00Z'), 8)).toBe(at('2026-11-03T00:00:00Z'));
    expect(nextLocalHour(shanghai, at('2026-11-01T23:30:00Z'), 8)).toBe(at('2026-11-02T00:00:00Z'));
    const berlin = zoneClock('Europe/Berlin') as Clock;
    // The night clocks go back (2026-10-25): 08:00 is 07:00 UTC after, 06:00 UTC before.
    expect(nextLocalHour(berlin, at('2026-10-24T12:00:00Z'), 8)).toBe(at('2026-10-25T07:00:00Z'));
    expect(nextLocalHour(berlin, at('2026-10-23T12:00:00Z'), 8)).toBe(at('2026-10-24T06:00:00Z'));
  });
});
