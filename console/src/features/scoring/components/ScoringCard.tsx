import { EditOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Skeleton, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { linkQueries } from '../../links/index.ts';
import { scoringQuery } from '../api.ts';
import { SCORING_ANCHOR } from '../anchor.ts';
import { ScoringForm } from './ScoringForm.tsx';
import { ScoringRules } from './ScoringRules.tsx';

/** The card's own ask: where it stands once loaded, when the address names it (`#scoring`, from the home page). */
function useScrolledTo(ready: boolean) {
  const { hash } = useLocation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ready && hash === `#${SCORING_ANCHOR}`) ref.current?.scrollIntoView({ block: 'start' });
  }, [ready, hash]);
  return ref;
}

/**
 * The project's scoring rules (docs/scoring.md): every member reads them in words; the Master and
 * Admins change them, and are told that the project's scores are then recomputed.
 */
export function ScoringCard({ appId, manages }: { appId: string; manages: boolean }) {
  const { t } = useLazyTexts('scoring');
  const scoring = useQuery(scoringQuery(appId));
  const files = useQuery(linkQueries.files(appId));
  const [editing, setEditing] = useState(false);
  const ref = useScrolledTo(scoring.isSuccess);
  const rules = scoring.data;
  const choices = (files.data ?? []).map((f) => ({ id: f.id, name: f.name, pageCount: f.pageCount }));
  const fileName = (id: string) => choices.find((f) => f.id === id)?.name;
  const title = <h2 style={{ fontSize: 16, margin: 0 }}>{t('scoring.title')}</h2>;
  const edit = manages && !editing && rules && (
    <Button icon={<EditOutlined />} onClick={() => setEditing(true)}>
      {t('scoring.edit')}
    </Button>
  );
  return (
    <div id={SCORING_ANCHOR} ref={ref} style={{ scrollMarginTop: 16 }}>
      <Card size="small" title={title} extra={edit} data-testid="scoring-card">
        <Typography.Paragraph type="secondary">{t('scoring.intro')}</Typography.Paragraph>
        {rules?.recomputing && <Alert type="info" showIcon role="status" style={{ marginBottom: 12 }} message={t('scoring.recomputing')} />}
        {!rules ? (
          <Skeleton active paragraph={{ rows: 6 }} />
        ) : editing ? (
          <ScoringForm appId={appId} rules={rules} files={choices} onDone={() => setEditing(false)} />
        ) : (
          <ScoringRules rules={rules} fileName={fileName} />
        )}
        {rules && !editing && (
          <Flex vertical gap={4} style={{ marginTop: 12 }}>
            <Typography.Text type="secondary">
              {rules.updatedAt ? (
                <>
                  {t('scoring.updatedAt')} <DateTime value={rules.updatedAt} />
                </>
              ) : (
                t('scoring.defaultsInUse')
              )}
            </Typography.Text>
            {!manages && <Typography.Text type="secondary">{t('scoring.readOnly')}</Typography.Text>}
          </Flex>
        )}
      </Card>
    </div>
  );
}
