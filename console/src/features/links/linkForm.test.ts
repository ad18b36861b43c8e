import { describe, expect, it } from 'vitest';
import type { LinkItem } from './api.ts';
import { createInput, editInput, editValues, listValue } from './linkForm.ts';

/** A deck link with a passcode, an expiry (in UTC, the server's zone by default), a refused domain and an agreement. */
const link = {
  id: 'l1',
  name: 'Pricing deck',
  title: null,
  type: 1,
  file1: 'f1',
  website: null,
  customerId: 'c1',
  customer: { id: 'c1', name: 'Ada' },
  hasPasscode: true,
  expiresAt: '2031-01-01 09:30:00',
  allowDownload: 0,
  watermark: 0,
  emailGate: 1,
  emailVerify: 0,
  allowList: [],
  denyList: ['rival.example'],
  agreement: 'Keep it to yourself.',
  agreementVersion: 1,
  status: 1,
} as unknown as LinkItem;

describe('editInput', () => {
  const before = editValues(link);

  it('sends nothing when nothing changed', () => {
    expect(editInput(link, before, { ...before })).toEqual({});
  });

  it('sends only the fields changed: a title, the watermark, an agreement, a list', () => {
    const after = { ...before, title: ' Acme pricing ', watermark: true, agreement: 'A new text', allow_list: 'acme.com\nbob@x.io' };
    expect(editInput(link, before, after)).toEqual({
      title: 'Acme pricing',
      watermark: 1,
      agreement: 'A new text',
      allow_list: 'acme.com,bob@x.io',
    });
  });

  it("removes with '': the title, the customer, the expiry, the agreement, a list", () => {
    const after = { ...before, customer_id: undefined, expires: null, agreement: '  ', deny_list: '' };
    expect(editInput(link, { ...before, title: 'Old' }, { ...after, title: '' })).toEqual({
      title: '',
      customer_id: '',
      expires_at: '',
      agreement: '',
      deny_list: '',
    });
  });

  it('the e-mail gate off clears its code and lists, which would keep it on', () => {
    const gated = editValues({ ...link, emailVerify: 1 } as LinkItem);
    expect(editInput(link, gated, { ...gated, email_gate: false })).toEqual({ email_gate: 0, email_verify: 0, deny_list: '' });
  });

  it('a passcode is kept, replaced or removed as chosen; a link without one gets one when typed', () => {
    expect(editInput(link, before, { ...before, passcode_change: 'keep', passcode: 'ignored' })).toEqual({});
    expect(editInput(link, before, { ...before, passcode_change: 'new', passcode: 's3cret' })).toEqual({ passcode: 's3cret' });
    expect(editInput(link, before, { ...before, passcode_change: 'remove' })).toEqual({ passcode: '' });
    const open = { ...link, hasPasscode: false } as LinkItem;
    expect(editInput(open, before, { ...before, passcode: 'abcd' })).toEqual({ passcode: 'abcd' });
  });

  it('a new kind sends its target; a room link never sends a kind or a target', () => {
    expect(editInput(link, before, { ...before, type: 2, website: 'https://acme.example/' })).toEqual({
      type: 2,
      website: 'https://acme.example/',
    });
    const room = { ...link, type: 4, file1: null } as unknown as LinkItem;
    const roomBefore = editValues(room);
    expect(editInput(room, roomBefore, { ...roomBefore, watermark: true })).toEqual({ watermark: 1 });
  });

  it('an expiry moved sends the new time in the server zone, to the minute', () => {
    const later = before.expires?.add(1, 'day');
    expect(editInput(link, before, { ...before, expires: later ?? null })).toEqual({ expires_at: '2031-01-02 09:30:00' });
  });
});

describe('createInput', () => {
  it('sends the gate’s code and lists only with the gate on', () => {
    const v = { name: ' Deck ', type: 1 as const, file_id: 'f1', email_gate: false, email_verify: true, deny_list: 'x.com' };
    expect(createInput(v)).toEqual({ name: 'Deck', type: 1, file_id: 'f1', allow_download: 0, watermark: 0, email_gate: 0 });
    expect(createInput({ ...v, email_gate: true })).toMatchObject({ email_gate: 1, email_verify: 1, deny_list: 'x.com' });
  });
});

describe('listValue', () => {
  it('reads commas, spaces and lines as separators', () => {
    expect(listValue(' a.com,\n b.com  c.com,,')).toBe('a.com,b.com,c.com');
  });
});
