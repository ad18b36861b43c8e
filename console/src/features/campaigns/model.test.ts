import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import {
  type ComposerValues,
  type PreviewState,
  campaignInput,
  canPreview,
  confirmedCount,
  customerOption,
  draftOf,
  fieldOf,
  formName,
  insertMergeField,
  isCounting,
  previewedCustomer,
  recipientsOf,
} from './model.ts';

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

  it('shows a recipients failure on the field of the mode chosen', () => {
    expect(formName('recipients', 'customers')).toBe('customers');
    expect(formName('recipients', 'group')).toBe('group');
    expect(formName('sendAt', 'group')).toBe('sendAt');
    expect(formName('title', 'customers')).toBe('title');
  });
});

const ann = { value: 'c1', label: 'Ann · ann@example.com' };
const bob = { value: 'c2', label: 'Bob' };

describe('the draft', () => {
  it('names the customers picked, or the group, as the API does; nothing while neither is chosen', () => {
    expect(recipientsOf('customers', [ann, bob], 'g1')).toEqual({ customer_ids: ['c1', 'c2'] });
    expect(recipientsOf('customers', [], 'g1')).toEqual({});
    expect(recipientsOf('group', [ann], 'g1')).toEqual({ group_id: 'g1' });
    expect(recipientsOf('group', [ann], undefined)).toEqual({});
  });

  it('is previewed as a customer still picked, else with the sample values', () => {
    expect(previewedCustomer('customers', [ann, bob], 'c2')).toBe('c2');
    expect(previewedCustomer('customers', [ann], 'c2')).toBe('');
    expect(previewedCustomer('group', [ann, bob], 'c2')).toBe('');
    expect(draftOf({ title: 'Hi', html: '<p>x</p>', previewAs: 'c2', recipients: { customer_ids: ['c1', 'c2'] } })).toEqual({
      title: 'Hi',
      html: '<p>x</p>',
      customer_id: 'c2',
      customer_ids: ['c1', 'c2'],
    });
    expect(draftOf({ title: 'Hi', html: '', previewAs: '', recipients: {} })).toEqual({ title: 'Hi', html: '' });
  });

  it('is previewed once subject and body are not blank', () => {
    expect(canPreview({ title: 'Hi', html: '<p>x</p>' })).toBe(true);
    expect(canPreview({ title: '  ', html: '<p>x</p>' })).toBe(false);
    expect(canPreview({ title: 'Hi', html: '\n' })).toBe(false);
  });
});

describe('the count the confirmation waits for', () => {
  const draft = { title: 'Hi', html: '<p>x</p>', customer_ids: ['c1'] };
  const answered: PreviewState = { isFetching: false, isPlaceholderData: false, isError: false, recipientCount: 1 };

  it('is the preview of the draft as it is now', () => {
    expect(isCounting(draft, { ...draft }, answered)).toBe(false);
    expect(confirmedCount(false, answered)).toBe(1);
  });

  it('waits while the draft settles, the preview is asked, or the answer shown is an earlier one', () => {
    expect(isCounting(draft, { ...draft, customer_ids: [] }, answered)).toBe(true);
    expect(isCounting(draft, draft, { ...answered, isFetching: true })).toBe(true);
    expect(isCounting(draft, draft, { ...answered, isPlaceholderData: true })).toBe(true);
    expect(confirmedCount(true, answered)).toBeUndefined();
  });

  it('waits for a count when there are recipients, and not when there are none or the preview failed', () => {
    expect(isCounting(draft, draft, { ...answered, recipientCount: null })).toBe(true);
    const none = { title: 'Hi', html: '<p>x</p>' };
    expect(isCounting(none, none, { ...answered, recipientCount: null })).toBe(false);
    expect(confirmedCount(false, { ...answered, recipientCount: null })).toBeNull();
    const failed = { ...answered, isError: true, recipientCount: undefined };
    expect(isCounting(draft, draft, failed)).toBe(false);
    expect(confirmedCount(false, { ...failed, recipientCount: 3 })).toBeUndefined();
  });
});

describe('writing and sending', () => {
  it('puts a merge field in place of the selection, the caret after it', () => {
    expect(insertMergeField('Dear , hello', 5, 5, 'name')).toEqual({ html: 'Dear {{name}}, hello', caret: 13 });
    expect(insertMergeField('Dear you', 5, 8, 'name')).toEqual({ html: 'Dear {{name}}', caret: 13 });
    expect(insertMergeField('', 0, 0, 'email')).toEqual({ html: '{{email}}', caret: 9 });
  });

  it('sends the send time only for a later campaign, in the server zone', () => {
    const at = dayjs('2026-12-01T09:30:00');
    const values: ComposerValues = { title: 'Hi', html: '<p>x</p>', mode: 'group', customers: [], group: 'g1', when: 'later', sendAt: at };
    const serverTime = (d: dayjs.Dayjs) => d.format('YYYY-MM-DD HH:mm:ss');
    expect(campaignInput(values, { group_id: 'g1' }, serverTime)).toEqual({
      title: 'Hi',
      html: '<p>x</p>',
      group_id: 'g1',
      send_at: '2026-12-01 09:30:00',
    });
    expect(campaignInput({ ...values, when: 'now' }, { group_id: 'g1' }, serverTime)).toEqual({
      title: 'Hi',
      html: '<p>x</p>',
      group_id: 'g1',
    });
    expect(campaignInput({ ...values, sendAt: null }, { group_id: 'g1' }, serverTime)).not.toHaveProperty('send_at');
  });

  it('offers a customer by name and e-mail, or by id', () => {
    expect(customerOption({ id: 'c1', name: 'Ann', email: 'ann@example.com' })).toEqual(ann);
    expect(customerOption({ id: 'c2', name: 'Bob', email: null })).toEqual(bob);
    expect(customerOption({ id: 'c3', name: '', email: '' })).toEqual({ value: 'c3', label: 'c3' });
  });
});
