// lanes: sqlite
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createVisitorDescriber, truncateIp } from '../../../src/lib/visitor.ts';
import { openContext } from '../../../src/runtime.ts';
import { Writable } from 'node:stream';

const GEO = new URL('../../fixtures/geo-test.mmdb', import.meta.url).pathname;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const WECHAT =
  'Mozilla/5.0 (Linux; Android 13; M2012K11AC Build/TKQ1.220829.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160065 MMWEBSDK/20231202 MMWEBID/2247 MicroMessenger/8.0.47.2560(0x28002F30) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('truncateIp', () => {
  it('keeps the network: IPv4 /24, IPv6 /48, mapped IPv4 as IPv4', () => {
    expect(truncateIp('203.0.113.77')).toBe('203.0.113.0');
    expect(truncateIp('::ffff:203.0.113.77')).toBe('203.0.113.0');
    expect(truncateIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(truncateIp('2001:db8::1')).toBe('2001:db8:0::');
    expect(truncateIp('::1')).toBe('0:0:0::');
    expect(truncateIp('not an address')).toBe('');
  });
});

describe('describing a visitor', () => {
  const plain = createVisitorDescriber({ truncateIps: true });

  it('reads the client from the User-Agent', () => {
    expect(plain.describe(IPHONE, '203.0.113.9')).toMatchObject({
      isBot: false,
      clientName: 'Mobile Safari',
      clientVersion: '17.4',
      os: 'iOS',
      osVersion: '17.4',
      device: 'mobile',
      system: 'iOS 17.4',
      client: 'Mobile Safari 17',
      ip: '203.0.113.0',
      location: null,
    });
    expect(plain.describe(WECHAT, undefined)).toMatchObject({
      isBot: false,
      clientName: 'WeChat',
      os: 'Android',
      device: 'mobile',
      ip: null,
    });
    expect(plain.describe(DESKTOP, '198.51.100.4')).toMatchObject({ isBot: false, clientName: 'Chrome', os: 'Windows', device: 'desktop' });
  });

  it('takes crawlers, unfurlers, scanners, headless browsers and a missing User-Agent for bots', () => {
    for (const ua of [
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      'curl/8.5.0',
      '',
      undefined,
    ]) {
      expect(plain.describe(ua, '203.0.113.9').isBot, String(ua)).toBe(true);
    }
  });

  it('keeps the whole address when truncation is off', () => {
    expect(createVisitorDescriber({ truncateIps: false }).describe(DESKTOP, '::ffff:203.0.113.9').ip).toBe('203.0.113.9');
  });

  it('names the place from a MaxMind City database, before truncating, in the configured language', () => {
    const en = createVisitorDescriber({ truncateIps: true, geoDatabase: GEO });
    expect(en.describe(DESKTOP, '203.0.113.250')).toMatchObject({
      ip: '203.0.113.0',
      location: 'China Guangdong Shenzhen',
      province: 'Guangdong',
      city: 'Shenzhen',
    });
    // A city-state's province and city are the same place: named once.
    expect(en.describe(DESKTOP, '198.51.100.1').location).toBe('Germany Berlin');
    const zh = createVisitorDescriber({ truncateIps: true, geoDatabase: GEO, geoLanguage: 'zh-CN' });
    expect(zh.describe(DESKTOP, '203.0.113.250')).toMatchObject({ location: '中国 广东 深圳', province: '广东', city: '深圳' });
    // Unknown networks and addresses the database cannot hold have no place.
    expect(en.describe(DESKTOP, '192.0.2.1').location).toBeNull();
    expect(en.describe(DESKTOP, '2001:db8::1').location).toBeNull();
  });

  it('refuses to start with a GEOIP_DB that is missing or not a MaxMind database', async () => {
    const quiet = createLogger('silent');
    await expect(
      openContext(loadConfig({ DATA_DIR: '/tmp/unused', GEOIP_DB: '/nonexistent.mmdb' }), quiet, { migrate: false }),
    ).rejects.toThrow(/GEOIP_DB: cannot read/);
    await expect(
      openContext(loadConfig({ DATA_DIR: '/tmp/unused', GEOIP_DB: new URL('./visitor.test.ts', import.meta.url).pathname }), quiet, {
        migrate: false,
      }),
    ).rejects.toThrow(/is not a MaxMind database/);
    expect(() => loadConfig({ GEOIP_LANGUAGE: 'xx' })).toThrow(/GEOIP_LANGUAGE must be one of/);
  });
});

describe('request logs', () => {
  const lineFor = (truncateIps: boolean) => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        out += chunk.toString();
        cb();
      },
    });
    createLogger('info', sink, { truncateIps }).info({ req: { method: 'GET', url: '/l/x', ip: '203.0.113.77' } }, 'request');
    return JSON.parse(out) as { req: { remoteAddress: string } };
  };

  it('carry the address truncated, unless IP_TRUNCATE is off', () => {
    expect(lineFor(true).req.remoteAddress).toBe('203.0.113.0');
    expect(lineFor(false).req.remoteAddress).toBe('203.0.113.77');
  });
});
