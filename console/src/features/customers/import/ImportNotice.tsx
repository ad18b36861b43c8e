import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { DeferredAlert } from '../../../shared/ui/DeferredAlert.tsx';
import { type ImportJobView, isSettled, percentDone } from './model.ts';
import { outcomeParts } from './summary.ts';

type NoticedJob = Pick<ImportJobView, 'status' | 'fileName' | 'total' | 'processed' | 'created' | 'updated' | 'skipped' | 'failed'>;

/** The notice of an import above the customer list: its progress, or how it ended, and a button to its summary. */
export function ImportNotice({ job, onClose, onShow }: { job: NoticedJob; onClose: () => void; onShow: () => void }) {
  const { t } = useTranslation();
  const settled = isSettled(job);
  return (
    <DeferredAlert
      type={!settled ? 'info' : job.status === 'failed' ? 'error' : 'success'}
      showIcon
      style={{ marginBottom: 16 }}
      message={
        !settled
          ? t('customers.import.runningBanner', { file: job.fileName, percent: percentDone(job) })
          : job.status === 'failed'
            ? t('customers.import.failedBanner', { file: job.fileName })
            : t('customers.import.finishedBanner', { file: job.fileName, ...outcomeParts(t, job) })
      }
      closable={settled}
      onClose={onClose}
      action={
        <Button size="small" onClick={onShow}>
          {t('customers.import.show')}
        </Button>
      }
    />
  );
}
