import { describe, expect, it } from 'vitest';
import { alerts, countsForBell } from './alerts.ts';
import { liveFeed } from './liveFeed.ts';

describe('live alerts', () => {
  it("pop up for a customer's own doing", () => {
    for (const action of ['link_view_log', 'link_view_clue', 'access_site', 'submit_form', 'mail_click'])
      expect(alerts(action), action).toBe(true);
  });

  it("stay in the feed for the team's own doings and the steps inside a reading", () => {
    for (const action of [
      'create',
      'mail_sent',
      'send_data_by_mail',
      'call',
      'call_end',
      'customer_record',
      'customer_merged',
      'file_view_duration',
      'link_leave_log',
      'web_page_view',
      'access_site_end',
      'mail_open',
    ])
      expect(alerts(action), action).toBe(false);
    expect(alerts(undefined)).toBe(false);
  });
});

describe('the bell', () => {
  const entry = (id: string, textKey: 'activity' | 'customerCreated' | 'customerChanged' | 'anonymousOpen', action?: string) => ({
    id,
    appId: 'p1',
    customerId: 'c1',
    customerName: 'Ada',
    textKey,
    action,
    content: null,
    linkName: undefined,
    at: '2026-11-28 10:00:00',
  });

  it('counts what a salesperson should look at, not an import of a thousand customers', () => {
    liveFeed.seen();
    for (let i = 0; i < 1000; i++) liveFeed.add(entry(`import-${i}`, 'customerCreated', 'create'));
    liveFeed.add(entry('edit', 'customerChanged'));
    liveFeed.add(entry('turn', 'activity', 'file_view_duration'));
    expect(liveFeed.snapshot().unseen).toBe(0);
    liveFeed.add(entry('open', 'activity', 'link_view_log'));
    liveFeed.add(entry('stranger', 'anonymousOpen', 'link_view_log'));
    expect(liveFeed.snapshot().unseen).toBe(2);
    // Everything is in the feed all the same (its latest 50).
    expect(liveFeed.snapshot().entries).toHaveLength(50);
    expect(countsForBell({ textKey: 'customerCreated', action: 'create' })).toBe(false);
  });
});
