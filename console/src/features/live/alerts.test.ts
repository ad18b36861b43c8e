import { describe, expect, it } from 'vitest';
import { alerts } from './alerts.ts';

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
