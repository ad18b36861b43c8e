import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.ts';

/** What the server's live stream sends (docs/live.md), as recorded from it. */
const RECORDED =
  'retry: 2000\n: connected\n\n' +
  'id: 1042\nevent: BehaviourLog.create\ndata: {"id":"0193","event_type":"create","domainType":"BehaviourLog","domainId":"b1","body":{"action":"call"},"createdAt":"2026-11-25 17:31:02"}\n\n' +
  ': heartbeat\n\n' +
  'id: 1043\nevent: Customer.update\ndata: {"id":"0194","domainType":"Customer","domainId":"c1"}\n\n';

describe('SseParser', () => {
  it('reads the live stream: events with ids and names, comments and the retry hint', () => {
    const parser = new SseParser();
    const messages = parser.push(RECORDED);
    expect(messages.map((m) => [m.id, m.event])).toEqual([
      ['1042', 'BehaviourLog.create'],
      ['1043', 'Customer.update'],
    ]);
    expect(JSON.parse(messages[0]?.data ?? '')).toMatchObject({ domainType: 'BehaviourLog', body: { action: 'call' } });
    expect(parser.retry).toBe(2000);
    expect(parser.lastEventId).toBe('1043');
  });

  it('gives the same messages however the bytes are split, CRLF included', () => {
    const whole = new SseParser().push(RECORDED);
    for (const text of [RECORDED, RECORDED.replaceAll('\n', '\r\n'), RECORDED.replaceAll('\n', '\r')]) {
      for (let size = 1; size <= 7; size++) {
        const parser = new SseParser();
        const got = [];
        for (let i = 0; i < text.length; i += size) got.push(...parser.push(text.slice(i, i + size)));
        expect(got, `chunks of ${size}`).toEqual(whole);
      }
    }
  });

  it('joins data lines, strips one leading space, defaults the event name, and waits for the blank line', () => {
    const parser = new SseParser();
    expect(parser.push('data:a\ndata:  b\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ id: undefined, event: 'message', data: 'a\n b' }]);
    // An event with no data dispatches nothing, and a field without a colon is a field with an empty value.
    expect(parser.push('event: x\n\ndata\n\n')).toEqual([{ id: undefined, event: 'message', data: '' }]);
  });

  it('keeps the last id across messages without one, ignores a bad retry and unknown fields', () => {
    const parser = new SseParser();
    parser.push('id: 7\ndata: x\n\nretry: soon\nfoo: bar\ndata: y\n\n');
    expect(parser.lastEventId).toBe('7');
    expect(parser.retry).toBeUndefined();
  });
});
