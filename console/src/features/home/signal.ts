import type { ReasonKind } from '../../shared/score/reasons.ts';

/** The signal of a lead's latest rise (docs/scoring.md "Hot leads"): the fields read here. */
export interface SignalLike {
  kind: ReasonKind;
  title?: string;
  url?: string;
}

/**
 * The text that says a signal, and its values: the reasons' texts (`customers.score.reasons`) where
 * they fit, the home page's own for key pages (a signal does not carry their time). Pure.
 */
export function signalWords(s: SignalLike): { key: string; values: Record<string, string> } {
  const title = s.title?.trim() || undefined;
  switch (s.kind) {
    case 'deck_read':
      return { key: 'customers.score.reasons.deck_readAny', values: title ? { title } : {} };
    case 'key_page':
      return { key: 'home.signal.keyPage', values: title ? { title } : {} };
    case 'site_key_page':
      return { key: 'customers.score.reasons.site_key_page', values: { page: title ?? s.url ?? '' } };
    case 'form':
      return title ? { key: 'customers.score.reasons.form', values: { title } } : { key: 'customers.score.reasons.formSite', values: {} };
    case 'mail_click':
      return { key: 'customers.score.reasons.mail_click', values: {} };
    default:
      return { key: 'customers.score.reasons.return', values: {} };
  }
}
