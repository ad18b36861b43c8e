import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FILTER,
  callFieldOf,
  callSeconds,
  defaultDue,
  memberName,
  peopleWhoMaySee,
  readFilter,
  taskFieldOf,
  taskQuery,
  writeFilter,
} from './model.ts';

const member = (svcUserId: number, role: string, name: string | null, status = 0) => ({
  svcUserId,
  role,
  status,
  user: { userName: name, phoneNum: name ? null : `1370000${svcUserId}`, email: null },
});

describe('the task list filters', () => {
  it('reads the defaults from an empty URL: my open tasks, whenever due, page 1', () => {
    expect(readFilter(new URLSearchParams(), true)).toEqual(DEFAULT_FILTER);
    expect(DEFAULT_FILTER).toEqual({ due: 'all', status: 'open', assignee: 'me', page: 1 });
  });

  it('reads known values and drops unknown ones', () => {
    expect(readFilter(new URLSearchParams('due=today&status=done&assignee=42&page=3'), true)).toEqual({
      due: 'today',
      status: 'done',
      assignee: '42',
      page: 3,
    });
    expect(readFilter(new URLSearchParams('due=tomorrow&status=late&assignee=bob&page=-2'), true)).toEqual(DEFAULT_FILTER);
  });

  it('shows a Sales member their own tasks whatever the URL names', () => {
    expect(readFilter(new URLSearchParams('assignee=all'), false).assignee).toBe('me');
    expect(readFilter(new URLSearchParams('assignee=42'), false).assignee).toBe('me');
  });

  it('writes only what differs from the defaults, and reads back what it wrote', () => {
    expect(writeFilter(DEFAULT_FILTER).toString()).toBe('');
    const f = { due: 'week', status: 'all', assignee: 'all', page: 2 } as const;
    expect(writeFilter(f).toString()).toBe('due=week&status=all&assignee=all&page=2');
    expect(readFilter(writeFilter(f), true)).toEqual(f);
  });
});

describe('the API query of the filters', () => {
  it('names the caller for "me", nobody for "all", the member for an id', () => {
    expect(taskQuery(DEFAULT_FILTER, 7, 'Europe/Berlin')).toEqual({ assignee_id: 7, status: 'open' });
    expect(taskQuery({ ...DEFAULT_FILTER, assignee: 'all', status: 'all' }, 7, 'Europe/Berlin')).toEqual({});
    expect(taskQuery({ ...DEFAULT_FILTER, assignee: '42' }, 7, 'Europe/Berlin')).toEqual({ assignee_id: 42, status: 'open' });
  });

  it("sends the browser's zone with a due filter, and no status with overdue (open by definition)", () => {
    expect(taskQuery({ ...DEFAULT_FILTER, due: 'today' }, 7, 'Asia/Shanghai')).toEqual({
      assignee_id: 7,
      status: 'open',
      due: 'today',
      time_zone: 'Asia/Shanghai',
    });
    expect(taskQuery({ ...DEFAULT_FILTER, due: 'week' }, 7, undefined)).toEqual({ assignee_id: 7, status: 'open', due: 'week' });
    expect(taskQuery({ ...DEFAULT_FILTER, due: 'overdue', status: 'done' }, 7, 'Asia/Shanghai')).toEqual({
      assignee_id: 7,
      due: 'overdue',
      time_zone: 'Asia/Shanghai',
    });
  });
});

describe('people', () => {
  it('names a member by name, else phone or e-mail, else id', () => {
    expect(memberName(member(1, 'Sales', ' Li Lei '))).toBe('Li Lei');
    expect(memberName(member(2, 'Sales', null))).toBe('13700002');
    expect(memberName({ svcUserId: 3, role: 'Sales', status: 0, user: null })).toBe('#3');
  });

  it('lets the Master, Admins and the owner be mentioned or given a task, active ones only, the caller first', () => {
    const members = [
      member(1, 'Master', 'Mia'),
      member(2, 'Admin', 'Ada'),
      member(3, 'Sales', 'Sam'),
      member(4, 'Sales', 'Owen'),
      member(5, 'Admin', 'Gone', 1),
    ];
    expect(peopleWhoMaySee(members, 4, 2)).toEqual([
      { id: 2, name: 'Ada' },
      { id: 1, name: 'Mia' },
      { id: 4, name: 'Owen' },
    ]);
    expect(peopleWhoMaySee(members, undefined, 1).map((p) => p.id)).toEqual([1, 2]);
  });
});

describe('times and lengths', () => {
  it('proposes the next full hour as a due time while it is today, else the last minute of today', () => {
    expect(defaultDue(dayjs('2026-05-04T10:20:00')).format('YYYY-MM-DD HH:mm')).toBe('2026-05-04 11:00');
    expect(defaultDue(dayjs('2026-05-04T22:59:59')).format('YYYY-MM-DD HH:mm')).toBe('2026-05-04 23:00');
    expect(defaultDue(dayjs('2026-05-04T23:10:00')).format('YYYY-MM-DD HH:mm')).toBe('2026-05-04 23:59');
  });

  it("turns a call's minutes and seconds into the API's seconds, within 0 to a day", () => {
    expect(callSeconds(3, 15)).toBe(195);
    expect(callSeconds(null, null)).toBe(0);
    expect(callSeconds(2000, 0)).toBe(86_400);
    expect(callSeconds(-1, 0)).toBe(0);
  });
});

describe('failures on the form fields', () => {
  it("puts a task's field codes on their fields", () => {
    expect(taskFieldOf('title_required')).toBe('title');
    expect(taskFieldOf('title_invalid')).toBe('title');
    expect(taskFieldOf('due_at_invalid')).toBe('dueAt');
    expect(taskFieldOf('assignee_id_invalid')).toBe('assignee');
    expect(taskFieldOf('task_kind_invalid')).toBe('kind');
    expect(taskFieldOf('notes_invalid')).toBe('notes');
    expect(taskFieldOf('customer_not_found')).toBeUndefined();
    expect(taskFieldOf(undefined)).toBeUndefined();
  });

  it("puts a call's field codes on their fields", () => {
    expect(callFieldOf('call_time_invalid')).toBe('callTime');
    expect(callFieldOf('direction_invalid')).toBe('direction');
    expect(callFieldOf('content_invalid')).toBe('note');
    expect(callFieldOf('customer_not_found')).toBeUndefined();
  });
});
