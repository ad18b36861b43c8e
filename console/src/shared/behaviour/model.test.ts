import { describe, expect, it } from 'vitest';
import { describeBehaviour, durationParts, pagesRead } from './model.ts';

const base = { when: '2026-11-25 10:00:00', content: null };

describe('describeBehaviour', () => {
  it('a link read: the link, the pages in order with their time, the whole time', () => {
    const view = describeBehaviour({
      ...base,
      action: 'link_view_log',
      content: JSON.stringify({ linkId: 'l1', title: 'Old title' }),
      linkDetail: { name: 'Price list' },
      linkViewLog: {
        totalDuration: 95_000,
        durations: [
          { pageIndex: '2', duration: '30000' },
          { pageIndex: '1', duration: '60000' },
          { pageIndex: '2', duration: '5000' },
          { pageIndex: 'x', duration: '1' },
        ],
      },
    });
    expect(view).toMatchObject({ kind: 'link', titleKey: 'link_view_log', titleValues: { name: 'Price list' }, totalMs: 95_000 });
    expect(view.pages).toEqual([
      { page: 1, ms: 60_000 },
      { page: 2, ms: 35_000 },
    ]);
  });

  it('a page turn names the link and the page when the record says them, and the link alone otherwise', () => {
    const turn = (content: Record<string, unknown>) =>
      describeBehaviour({ ...base, action: 'file_view_duration', content: JSON.stringify(content) });
    expect(turn({ fileViewDurationId: 'v:1', linkViewLogId: 'v', linkId: 'l1', title: 'Price list', page: 3 })).toMatchObject({
      titleKey: 'file_view_duration_page',
      titleValues: { name: 'Price list', page: '3' },
    });
    // A producer's record (the interface's shape): no link or page in it.
    expect(turn({ fileViewDurationId: 'v:1', linkViewLogId: 'v' })).toMatchObject({
      titleKey: 'file_view_duration',
      titleValues: { name: '' },
    });
  });

  it('a call: its duration from the joined call record, else from the content', () => {
    expect(describeBehaviour({ ...base, action: 'call', duration: 125, handleState: '1' })).toMatchObject({
      kind: 'call',
      callSeconds: 125,
      callPending: false,
    });
    expect(describeBehaviour({ ...base, action: 'call_end', content: '{"record_id":"r","duration":42}' })).toMatchObject({
      callSeconds: 42,
    });
    expect(describeBehaviour({ ...base, action: 'call', handleState: '0' })).toMatchObject({ callPending: true });
  });

  it('a site visit: the site and the pages viewed', () => {
    const view = describeBehaviour({
      ...base,
      action: 'access_site',
      content: '{"web_access_log_id":"w1","title":"Acme","site":"acme.example"}',
      webAccessLog: { title: 'Acme', site: 'acme.example' },
      webPageViewLogs: [{ title: 'Pricing' }, { url: '/contact' }, {}],
    });
    expect(view).toEqual({ kind: 'site', titleKey: 'access_site', titleValues: { site: 'Acme' }, sitePages: ['Pricing', '/contact'] });
    expect(describeBehaviour({ ...base, action: 'web_page_view', content: '{"url":"/a"}' }).titleValues).toEqual({ title: '/a' });
    // A key behaviour on the site names its page; one in an app has none.
    expect(describeBehaviour({ ...base, action: 'submit_form', content: '{"title":"Contact us","url":"/contact"}' })).toEqual({
      kind: 'page',
      titleKey: 'submit_form',
      titleValues: { title: 'Contact us' },
    });
    expect(describeBehaviour({ ...base, action: 'app_play_media', content: '{}' })).toEqual({
      kind: 'page',
      titleKey: 'app_play_media',
      titleValues: {},
    });
  });

  it('other kinds: sends of material, deals, known actions, and unknown ones by their name', () => {
    expect(describeBehaviour({ ...base, action: 'send_data_by_mail', linkDetail: { name: 'Deck' } })).toMatchObject({
      titleKey: 'send_data',
      titleValues: { name: 'Deck' },
    });
    expect(describeBehaviour({ ...base, action: 'deal_record', content: '{"money":1200.5}' })).toMatchObject({
      kind: 'deal',
      money: '1200.5',
    });
    expect(describeBehaviour({ ...base, action: 'create', content: 'not json' })).toMatchObject({ kind: 'customer', titleKey: 'create' });
    expect(describeBehaviour({ ...base, action: 'daka' })).toEqual({ kind: 'other', titleKey: 'other', titleValues: { action: 'daka' } });
  });

  it("the team's own records: a note written and a task added, told apart from the customer's doings", () => {
    const note = describeBehaviour({ ...base, action: 'member_note', content: JSON.stringify({ note_id: 'n1', author_id: 7 }) });
    expect(note).toEqual({ kind: 'note', titleKey: 'member_note', titleValues: {} });
    const task = describeBehaviour({ ...base, action: 'member_task', content: JSON.stringify({ task_id: 't1', creator_id: 7 }) });
    expect(task).toEqual({ kind: 'task', titleKey: 'member_task', titleValues: {} });
  });

  it("names the project's own e-mails: sent with its subject (or without one), opened, clicked", () => {
    const sent = describeBehaviour({ ...base, action: 'mail_sent', content: JSON.stringify({ postId: 'p1', title: 'The deck' }) });
    expect(sent).toEqual({ kind: 'message', titleKey: 'mail_sent', titleValues: { subject: 'The deck' } });
    expect(describeBehaviour({ ...base, action: 'mail_sent', content: '{}' }).titleKey).toBe('mail_sentAny');
    expect(describeBehaviour({ ...base, action: 'mail_open' }).titleKey).toBe('mail_open');
    expect(describeBehaviour({ ...base, action: 'mail_click' }).titleKey).toBe('mail_click');
  });
});

describe('durationParts and pagesRead', () => {
  it('picks the unit a person reads', () => {
    expect(durationParts(4_400)).toEqual({ key: 'seconds', values: { s: 4 } });
    expect(durationParts(125_000)).toEqual({ key: 'minutes', values: { m: 2, s: 5 } });
    expect(durationParts(3_725_000)).toEqual({ key: 'hours', values: { h: 1, m: 2 } });
  });
  it('ignores pages it cannot read', () => {
    expect(pagesRead(null)).toEqual([]);
    expect(pagesRead([{ pageIndex: '1', duration: '-5' }])).toEqual([]);
  });
});
