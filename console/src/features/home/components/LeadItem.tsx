import { Flex } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { ScoreReasons } from '../../../shared/score/ScoreReasons.tsx';
import { useScoreWords } from '../../../shared/score/useScoreWords.ts';
import { Muted } from '../../../shared/ui/Muted.tsx';
import type { HotLead } from '../api.ts';
import { LastSignal } from './LastSignal.tsx';

/**
 * One hot lead: the customer (a link to their page) and company, the score, its largest reasons in
 * words, and the signal of the latest rise; the owner for those who see everyone's customers.
 */
export function LeadItem({ appId, lead, owner }: { appId: string; lead: HotLead; owner?: string }) {
  const { t } = useLazyTexts('home');
  const words = useScoreWords();
  const sub = lead.company || lead.email || lead.phone;
  return (
    <Flex vertical gap={4} style={{ width: '100%', minWidth: 0 }} data-lead={lead.customerId}>
      <Flex justify="space-between" align="baseline" gap={8} wrap>
        <span style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
          <Link to={`/p/${appId}/customers/${lead.customerId}`} style={{ fontWeight: 600, fontSize: 15 }}>
            {lead.name || t('customers.unnamed')}
          </Link>
          {sub ? <Muted> · {sub}</Muted> : null}
        </span>
        <strong style={{ color: '#1565c0', whiteSpace: 'nowrap' }} data-lead-score>
          {t('customers.score.value', { score: words.score(lead.score) })}
        </strong>
      </Flex>
      <ScoreReasons reasons={lead.scoreReasons} max={3} />
      <LastSignal lead={lead} owner={owner} />
    </Flex>
  );
}
