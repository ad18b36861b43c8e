/** The pure parts of revisits and forwards: a view's network, the forward's rule, the days without a view, their words. */
import { describe, expect, it } from 'vitest';
import { forwardOf, idleDaysOf, networkOf } from '../../../src/modules/alerts/shares.ts';
import { wordsOf } from '../../../src/modules/alerts/words.ts';
import type { EarlierView, ViewReader } from '../../../src/modules/links/service.ts';

const DAY = 24 * 60 * 60 * 1000;
const view = (v: Partial<ViewReader> = {}): ViewReader => ({
  id: 'v9',
  linkId: 'l1',
  customerId: 'c1',
  seq: 9,
  viewTime: 10 * DAY,
  visitorId: 'phone',
  ip: '203.0.113.0',
  email: null,
  verified: false,
  ...v,
});
const seen = (visitorId: string | null, ip: string | null, lastAt = 5 * DAY): EarlierView => ({ visitorId, ip, lastAt });

describe('a view’s network', () => {
  it('is its IPv4 /24 or IPv6 /48, whether the address was stored truncated or whole, mapped or not', () => {
    expect(networkOf('203.0.113.0')).toBe('203.0.113.0/24');
    expect(networkOf('203.0.113.77')).toBe('203.0.113.0/24');
    expect(networkOf('::ffff:203.0.113.77')).toBe('203.0.113.0/24');
    expect(networkOf('2001:db8:85a3::')).toBe(networkOf('2001:db8:85a3:1:2:3:4:5'));
    expect(networkOf('2001:db8:85a3::')).not.toBe(networkOf('2001:db8:85a4::'));
    expect(networkOf(null)).toBeNull();
    expect(networkOf('not an address')).toBeNull();
  });
});

describe('a forward', () => {
  it('is a reader who gave an address other than the customer’s, whatever the network; the customer’s own is none', () => {
    const jane = view({ email: 'jane@other.example', verified: true });
    expect(forwardOf(jane, [seen('laptop', '203.0.113.0')], false)).toEqual({ email: 'jane@other.example', verified: true });
    expect(forwardOf(jane, null, false)).toEqual({ email: 'jane@other.example', verified: true });
    // The customer's own address, even from a new device on another network.
    expect(forwardOf(view({ email: 'ada@example.com', ip: '192.0.2.0' }), [seen('laptop', '203.0.113.0')], true)).toBeNull();
  });

  it('is likely when a new visitor opens the link from another network than every earlier view', () => {
    expect(forwardOf(view({ ip: '192.0.2.0' }), [seen('laptop', '203.0.113.0')], false)).toEqual({ email: null });
    // A second device on the customer's network (the office, home): none.
    expect(forwardOf(view(), [seen('laptop', '203.0.113.0')], false)).toBeNull();
    expect(forwardOf(view({ ip: '192.0.2.0' }), [seen('laptop', '203.0.113.0'), seen('tablet', '192.0.2.0')], false)).toBeNull();
    // A visitor seen on the link before: none.
    expect(forwardOf(view({ ip: '192.0.2.0' }), [seen('phone', '203.0.113.0')], false)).toBeNull();
  });

  it('is not judged without grounds: the first view, only ingested views before, an unknown network', () => {
    expect(forwardOf(view(), [], false)).toBeNull();
    expect(forwardOf(view({ ip: '192.0.2.0' }), [seen(null, null)], false)).toBeNull();
    expect(forwardOf(view({ ip: null }), [seen('laptop', '203.0.113.0')], false)).toBeNull();
    expect(forwardOf(view({ ip: '192.0.2.0' }), [seen('laptop', null)], false)).toBeNull();
    expect(forwardOf(view({ visitorId: null, ip: '192.0.2.0' }), [seen('laptop', '203.0.113.0')], false)).toBeNull();
  });
});

describe('a revisit', () => {
  it('counts the whole days since the link’s last view was last seen; none for a first view', () => {
    expect(idleDaysOf(view(), [seen('laptop', null, 5 * DAY), seen('phone', null, 6 * DAY - 1)])).toBe(4);
    expect(idleDaysOf(view(), [seen('laptop', null, 9 * DAY + 1)])).toBe(0);
    expect(idleDaysOf(view(), [])).toBeNull();
  });
});

describe('words', () => {
  it('say a return and a forward in both languages; a likely forward says so', () => {
    expect(wordsOf({ signal: 'revisit', customer: 'Ada', link: 'Pricing', days: 5 }, 'en-US')).toEqual({
      title: "Ada is back on 'Pricing'",
      text: 'First view in 5 days.',
    });
    expect(wordsOf({ signal: 'revisit', customer: 'Ada', link: 'Pricing', days: 1 }, 'en-US').text).toBe('First view in 1 day.');
    expect(wordsOf({ signal: 'revisit', customer: 'Ada', link: 'Pricing', days: 5 }, 'zh-CN')).toEqual({
      title: 'Ada 再次查看《Pricing》',
      text: '时隔 5 天后首次查看。',
    });
    const forward = { signal: 'forward' as const, customer: 'Ada', link: 'Pricing', email: 'jane@other.example' };
    expect(wordsOf(forward, 'en-US')).toEqual({
      title: "'Pricing' was forwarded",
      text: 'A new reader opened the link sent to Ada (jane@other.example).',
    });
    expect(wordsOf(forward, 'zh-CN')).toEqual({
      title: '《Pricing》被转发了',
      text: '发给 Ada 的链接有新的读者打开（jane@other.example）。',
    });
    expect(wordsOf({ ...forward, email: null }, 'en-US').title).toBe("'Pricing' was likely forwarded");
    expect(wordsOf({ ...forward, email: null }, 'zh-CN').title).toBe('《Pricing》可能被转发了');
  });
});
