import { Alert, Card, Empty, List, Statistic, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { PlaybookEditor } from '../usePlaybookEditor.ts';

/** The dry run's answer: over the last 30 days, for whom the playbook would have fired, when, and what it would have done. */
export function DryRunCard({ editor: e }: { editor: PlaybookEditor }) {
  const { t, i18n } = useLazyTexts('playbooks');
  const run = e.dryRun;
  const card = useRef<HTMLDivElement>(null);
  // On a phone the answer is below the editor: brought into sight when it comes.
  useEffect(() => {
    if (run.data || run.error) card.current?.scrollIntoView({ block: 'nearest' });
  }, [run.data, run.error]);
  if (run.isIdle) return null;
  return (
    <Card
      ref={card}
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('playbooks.dryRun.title')}</h2>}
      data-dry-run
      aria-busy={run.isPending}
    >
      {run.isError ? (
        <Alert type="error" showIcon message={errorText(run.error)} />
      ) : !run.data ? (
        <Typography.Text type="secondary">{t('playbooks.dryRun.running')}</Typography.Text>
      ) : (
        <>
          <Typography.Paragraph>{i18n.language === 'zh-CN' ? run.data.trigger.zh : run.data.trigger.en}</Typography.Paragraph>
          <Statistic title={t('playbooks.dryRun.fired')} value={run.data.runs} />
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
            {t('playbooks.dryRun.summary', { count: run.data.customers })} {t('playbooks.dryRun.records', { records: run.data.records })}
            {run.data.truncated ? ` ${t('playbooks.dryRun.truncated')}` : ''}
          </Typography.Paragraph>
          {run.data.runs === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('playbooks.dryRun.none')} />
          ) : (
            <List
              size="small"
              dataSource={run.data.listed}
              renderItem={(f) => (
                <List.Item style={{ paddingInline: 0, flexWrap: 'wrap', gap: 4 }}>
                  <Link to={`/p/${e.appId}/customers/${f.customerId}`}>{f.customerName || f.customerId}</Link>
                  <DateTime value={f.at} />
                  <Typography.Text type="secondary">
                    {t('playbooks.dryRun.wouldDo', {
                      actions: f.actions
                        .map((a) => t(`playbooks.actionTypes.${a}`, { defaultValue: a }))
                        .join(i18n.language === 'zh-CN' ? '、' : ', '),
                    })}
                  </Typography.Text>
                </List.Item>
              )}
            />
          )}
        </>
      )}
    </Card>
  );
}
