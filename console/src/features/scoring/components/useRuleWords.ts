import { useMemo } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type Rules, type WeightKey, percentOf } from '../model.ts';

/** A number as the rules' sentences show it: at most two decimals. */
const shown = (n: number) => Math.round(n * 100) / 100;

/**
 * The rules in words a salesperson reads ("A deck read to 50 % of its pages: 10 points", "Points
 * halve every 14 days"), in the user's language: one sentence a behaviour, then decay and hot leads.
 */
export function useRuleWords(rules: Rules | undefined) {
  const { t } = useLazyTexts('scoring');
  return useMemo(() => {
    if (!rules) return { earn: [], halfLife: '', hot: '' };
    const points = (n: number) => t('scoring.points', { count: shown(n) });
    const w = rules.weights;
    const earn: { key: WeightKey; text: string }[] = [
      { key: 'deck_read', text: t('scoring.rules.deck_read', { share: percentOf(rules.deckShare), points: points(w.deck_read) }) },
      {
        key: 'key_page_second',
        text: t('scoring.rules.key_page_second', {
          points: points(w.key_page_second),
          perMinute: shown(w.key_page_second * 60),
          minutes: shown(rules.keyPageCapSeconds / 60),
        }),
      },
      { key: 'site_key_page', text: t('scoring.rules.site_key_page', { points: points(w.site_key_page) }) },
      { key: 'mail_click', text: t('scoring.rules.mail_click', { points: points(w.mail_click) }) },
      { key: 'form', text: t('scoring.rules.form', { points: points(w.form) }) },
      { key: 'return', text: t('scoring.rules.return', { days: rules.returnDays, points: points(w.return) }) },
    ];
    return {
      earn,
      halfLife: t('scoring.rules.halfLife', { count: rules.halfLifeDays }),
      hot: rules.hotScore > 0 ? t('scoring.rules.hot', { points: points(rules.hotScore) }) : t('scoring.rules.hotNever'),
    };
  }, [rules, t]);
}
