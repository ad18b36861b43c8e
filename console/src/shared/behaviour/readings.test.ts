import { describe, expect, it } from 'vitest';
import { oneEntryPerReading } from './readings.ts';

const record = (id: string, action: string, content: Record<string, unknown> = {}) => ({
  id,
  action,
  when: '2026-11-28 10:00:00',
  content: JSON.stringify(content),
});

describe('the timeline', () => {
  it('shows one reading as one entry: its opening, without its page turns and its leave', () => {
    const shown = oneEntryPerReading([
      record('leave', 'link_leave_log', { linkViewLogId: 'v1' }),
      record('p3', 'file_view_duration', { linkViewLogId: 'v1', page: 3 }),
      record('p2', 'file_view_duration', { linkViewLogId: 'v1', page: 2 }),
      record('call', 'call'),
      record('p1', 'file_view_duration', { linkViewLogId: 'v1', page: 1 }),
      record('open', 'link_view_log', { linkViewLogId: 'v1' }),
    ]);
    expect(shown.map((r) => r.id)).toEqual(['call', 'open']);
  });

  it("keeps a reading's leave while its opening is not loaded yet (it carries the pages), and records of no view", () => {
    const shown = oneEntryPerReading([
      record('leave', 'link_leave_log', { linkViewLogId: 'v2' }),
      record('turn', 'file_view_duration', { linkViewLogId: 'v2' }),
      record('producer', 'file_view_duration', {}),
      record('sms', 'send_message'),
    ]);
    expect(shown.map((r) => r.id)).toEqual(['leave', 'producer', 'sms']);
  });
});
