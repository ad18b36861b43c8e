import { describe, expect, it } from 'vitest';
import { fieldOf } from './model.ts';

describe('the field a failure lands on', () => {
  it('follows the parameter the server names', () => {
    expect(fieldOf('title_required')).toBe('title');
    expect(fieldOf('html_invalid')).toBe('html');
    expect(fieldOf('send_at_invalid')).toBe('sendAt');
    for (const code of ['customer_ids_required', 'customer_not_found', 'group_not_found', 'group_id_invalid', 'no_recipients'])
      expect(fieldOf(code), code).toBe('recipients');
  });

  it('leaves failures of no field to the page', () => {
    for (const code of ['mail_not_configured', 'account_email_missing', 'rate_limited', 'mail_send_failed'])
      expect(fieldOf(code), code).toBeUndefined();
  });
});
