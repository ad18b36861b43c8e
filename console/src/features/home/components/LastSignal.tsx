import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { useScoreWords } from '../../../shared/score/useScoreWords.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { Muted } from '../../../shared/ui/Muted.tsx';
import type { HotLead } from '../api.ts';
import { signalWords } from '../signal.ts';

/** "Last signal: Read 'Pricing' · 5 minutes ago · +10": what made the score rise last, and when. */
export function LastSignal({ lead, owner }: { lead: HotLead; owner?: string }) {
  const { t } = useLazyTexts('home');
  const score = useScoreWords();
  const s = lead.lastSignal;
  const words = s ? signalWords(s) : undefined;
  const what = words ? t(words.key as 'home.signal.keyPage', { title: t('customers.score.untitled'), ...words.values }) : undefined;
  return (
    <Muted style={{ fontSize: 13 }} data-signal>
      {t('home.lastSignal')} {what ? `${what} · ` : ''}
      <DateTime value={s?.at ?? lead.risenAt} relative />
      {` · +${score.score(lead.rise)}`}
      {owner ? ` · ${t('home.owner', { name: owner })}` : ''}
    </Muted>
  );
}
