import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { type ScoreReason, reasonWords, scoreText } from './reasons.ts';

/** A score and its reasons in the user's language ("Read 8 of 10 pages of 'Pricing' (2 times)"). */
export function useScoreWords() {
  const { t, i18n } = useTranslation();
  return useMemo(
    () => ({
      score: (score: number) => scoreText(score, i18n.language),
      reason: (r: ScoreReason) => {
        const { key, values } = reasonWords(r);
        const what = t(`customers.score.reasons.${key}`, { ...values, title: values.title ?? t('customers.score.untitled') });
        return r.count > 1 ? t('customers.score.repeated', { what, count: r.count }) : what;
      },
    }),
    [t, i18n.language],
  );
}
