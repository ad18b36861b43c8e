import { describe, expect, it } from 'vitest';
import { signalWords } from './signal.ts';

describe('signalWords', () => {
  it("says a rise's signal with the reasons' texts, and key pages with the home's own", () => {
    expect(signalWords({ kind: 'deck_read', title: 'Pricing' })).toEqual({
      key: 'customers.score.reasons.deck_readAny',
      values: { title: 'Pricing' },
    });
    expect(signalWords({ kind: 'key_page', title: ' ' })).toEqual({ key: 'home.signal.keyPage', values: {} });
    expect(signalWords({ kind: 'site_key_page', url: 'https://a.example/pricing' })).toEqual({
      key: 'customers.score.reasons.site_key_page',
      values: { page: 'https://a.example/pricing' },
    });
    expect(signalWords({ kind: 'form', title: 'Offer' }).key).toBe('customers.score.reasons.form');
    expect(signalWords({ kind: 'form' }).key).toBe('customers.score.reasons.formSite');
    expect(signalWords({ kind: 'mail_click' }).key).toBe('customers.score.reasons.mail_click');
    expect(signalWords({ kind: 'return' }).key).toBe('customers.score.reasons.return');
  });
});
