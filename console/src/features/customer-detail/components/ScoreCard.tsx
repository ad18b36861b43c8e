import { Card, Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ScoreReason } from '../../../shared/score/reasons.ts';
import { ScoreReasons } from '../../../shared/score/ScoreReasons.tsx';
import { useScoreWords } from '../../../shared/score/useScoreWords.ts';
import { Muted } from '../../../shared/ui/Muted.tsx';

/** The customer's engagement score now and why (its largest reasons in words), or what would earn one. */
export function ScoreCard({ score, reasons }: { score: number | undefined; reasons: readonly ScoreReason[] | undefined }) {
  const { t } = useTranslation();
  const words = useScoreWords();
  return (
    <Card
      size="small"
      style={{ marginBottom: 16 }}
      data-testid="score-card"
      title={
        <Flex justify="space-between" align="baseline" gap={8}>
          <h2 style={{ fontSize: 16, margin: 0 }}>{t('customers.score.card.title')}</h2>
          {score ? <span style={{ fontSize: 22, fontWeight: 600, color: '#1565c0' }}>{words.score(score)}</span> : null}
        </Flex>
      }
    >
      {score && reasons && reasons.length > 0 ? <ScoreReasons reasons={reasons} /> : <Muted block>{t('customers.score.card.none')}</Muted>}
    </Card>
  );
}
