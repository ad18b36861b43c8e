import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Progress, Statistic, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { type ImportJob, downloads } from './api.ts';
import { isSettled, percentDone } from './model.ts';
import { outcomeParts } from './summary.ts';
import { useDownload } from './useDownload.ts';

/** A job's progress and, once it is over, what it did (or would do: a dry run), with its failed rows to download. */
export function JobOutcome({ appId, me, job }: { appId: string; me: number; job: ImportJob }) {
  const { t } = useTranslation();
  const download = useDownload();
  const settled = isSettled(job);
  const counts = (['created', 'updated', 'skipped', 'failed'] as const).map((k) => ({ key: k, value: job[k] }));
  // Once over: the rows checked (a dry run), or what the import did with them, each count said.
  const headline = !settled
    ? job.total > 0
      ? t('customers.import.progress', { processed: job.processed, total: job.total })
      : t('customers.import.counting')
    : job.dryRun
      ? t('customers.import.dryRunDone', { file: job.fileName, count: job.processed })
      : t('customers.import.done', { file: job.fileName, ...outcomeParts(t, job) });
  return (
    <Flex vertical gap={16}>
      {job.status !== 'failed' && <Typography.Text>{headline}</Typography.Text>}
      <Progress
        percent={percentDone(job)}
        status={job.status === 'failed' ? 'exception' : settled ? 'success' : 'active'}
        aria-label={t('customers.import.progressLabel')}
      />
      {job.status === 'failed' && (
        <Alert type="error" showIcon message={t('customers.import.jobFailed')} description={job.error ?? undefined} />
      )}
      <Flex wrap gap={24} role="group" aria-label={t(job.dryRun ? 'customers.import.wouldDo' : 'customers.import.did')}>
        {counts.map((c) => (
          <Statistic
            key={c.key}
            title={t(`customers.import.counts.${c.key}`)}
            value={c.value}
            valueStyle={c.key === 'failed' && c.value > 0 ? { color: '#cf1322' } : undefined}
          />
        ))}
      </Flex>
      {settled && job.failed > 0 && (
        <div>
          <Button
            icon={<DownloadOutlined />}
            loading={download.busy === 'problems'}
            onClick={() => void download.run('problems', () => downloads.problems(appId, me, job.id))}
          >
            {t('customers.import.problems')}
          </Button>
        </div>
      )}
    </Flex>
  );
}
