import { DownloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Drawer, Flex, List, Progress, Statistic, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { codeText } from '../../../shared/i18n/errors.ts';
import { customerQueries } from '../api.ts';
import { useDownload } from '../import/useDownload.ts';
import { type BulkAction, type BulkJob, bulkFile, bulkQueries, isSettled } from './api.ts';

/** The result of a settled job: its counts, its failures by reason and the first failed customers, an export's file. */
function Outcome({ appId, job }: { appId: string; job: BulkJob }) {
  // The failure codes' texts follow the language: useTranslation renders again on a switch.
  const { t } = useTranslation();
  const download = useDownload();
  const reasons = Object.entries(job.failures.byCode);
  return (
    <Flex vertical gap={16}>
      <Flex wrap gap={24} role="group" aria-label={t('customers.bulk.progress.outcome')}>
        <Statistic title={t('customers.bulk.progress.done')} value={job.done} />
        <Statistic
          title={t('customers.bulk.progress.failed')}
          value={job.failed}
          valueStyle={job.failed > 0 ? { color: '#cf1322' } : undefined}
        />
      </Flex>
      {job.fileUrl !== null && (
        <div>
          <Button
            type="primary"
            icon={<DownloadOutlined />}
            loading={download.busy === 'file'}
            onClick={() => void download.run('file', () => bulkFile(appId, job.id, job.format ?? 'csv'))}
          >
            {t('customers.bulk.progress.download')}
          </Button>
        </div>
      )}
      {reasons.length > 0 && (
        <List
          size="small"
          header={<Typography.Text strong>{t('customers.bulk.progress.reasons')}</Typography.Text>}
          dataSource={reasons}
          renderItem={([code, n]) => (
            <List.Item>
              <Typography.Text>{codeText(code) ?? code}</Typography.Text>
              <Typography.Text strong>{n}</Typography.Text>
            </List.Item>
          )}
        />
      )}
      {job.failures.first.length > 0 && (
        <List
          size="small"
          header={<Typography.Text strong>{t('customers.bulk.progress.firstFailed')}</Typography.Text>}
          dataSource={job.failures.first}
          renderItem={(f) => (
            <List.Item>
              <Flex vertical style={{ minWidth: 0 }}>
                <Link to={`/p/${appId}/customers/${f.customerId}`} style={{ overflowWrap: 'anywhere' }}>
                  {f.customerId}
                </Link>
                <Typography.Text type="secondary">{codeText(f.code) ?? f.code}</Typography.Text>
              </Flex>
            </List.Item>
          )}
        />
      )}
    </Flex>
  );
}

/**
 * A bulk job followed in a drawer: its progress, polled until it is over, then its result. Once it is
 * over, the list is read again (its customers moved, joined a group, or went).
 */
export function BulkProgress({ appId, jobId, wide, onClose }: { appId: string; jobId: string | null; wide: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const job = useQuery({ ...bulkQueries.job(appId, jobId ?? ''), enabled: jobId !== null });
  const data = job.data;
  const settled = data !== undefined && isSettled(data);
  useEffect(() => {
    if (settled) void client.invalidateQueries({ queryKey: customerQueries.all(appId) });
  }, [settled, client, appId]);
  const percent = data && data.total > 0 ? Math.floor((data.processed / data.total) * 100) : 0;
  return (
    <Drawer
      open={jobId !== null}
      onClose={onClose}
      width={wide ? 440 : '100%'}
      title={data ? t(`customers.bulk.progress.title.${data.action as BulkAction}`) : t('customers.bulk.progress.loading')}
    >
      {data && (
        <Flex vertical gap={16}>
          <Typography.Text role="status">
            {settled
              ? t(`customers.bulk.progress.status.${data.status as 'done' | 'failed'}`)
              : t('customers.bulk.progress.running', { processed: data.processed, total: data.total })}
          </Typography.Text>
          <Progress
            percent={settled && data.status === 'done' ? 100 : percent}
            status={data.status === 'failed' ? 'exception' : settled ? 'success' : 'active'}
            aria-label={t('customers.bulk.progress.label')}
          />
          {data.status === 'failed' && (
            <Alert type="error" showIcon message={t('customers.bulk.progress.jobFailed')} description={data.error ?? undefined} />
          )}
          {settled && <Outcome appId={appId} job={data} />}
        </Flex>
      )}
    </Drawer>
  );
}
