import { Button, Flex, Popconfirm } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type EnrollmentChange, useChangeEnrollment } from '../api.ts';

/** What can be done with an enrolment that still runs: pause or resume it, end it as removed or as replied. */
export function EnrollmentActions({ appId, id, state, who }: { appId: string; id: string; state: string; who: string }) {
  const { t } = useLazyTexts('sequences');
  const change = useChangeEnrollment(appId);
  if (state !== 'active' && state !== 'paused') return null;
  const run = (c: EnrollmentChange) => change.mutate({ id, change: c });
  const busy = change.isPending;
  // No space inserted between two Chinese characters: the visible text stays part of the accessible name (axe).
  return (
    <Flex gap={4} wrap>
      {state === 'active' ? (
        <Button
          size="small"
          autoInsertSpace={false}
          disabled={busy}
          onClick={() => run('pause')}
          aria-label={t('sequences.enrollment.pauseOf', { who })}
        >
          {t('sequences.enrollment.pause')}
        </Button>
      ) : (
        <Button
          size="small"
          autoInsertSpace={false}
          disabled={busy}
          onClick={() => run('resume')}
          aria-label={t('sequences.enrollment.resumeOf', { who })}
        >
          {t('sequences.enrollment.resume')}
        </Button>
      )}
      <Popconfirm
        title={t('sequences.enrollment.repliedConfirm')}
        okText={t('sequences.enrollment.replied')}
        onConfirm={() => run('replied')}
      >
        <Button size="small" autoInsertSpace={false} disabled={busy} aria-label={t('sequences.enrollment.repliedOf', { who })}>
          {t('sequences.enrollment.replied')}
        </Button>
      </Popconfirm>
      <Popconfirm
        title={t('sequences.enrollment.removeConfirm')}
        okText={t('sequences.enrollment.remove')}
        okButtonProps={{ danger: true }}
        onConfirm={() => run('remove')}
      >
        <Button size="small" autoInsertSpace={false} danger disabled={busy} aria-label={t('sequences.enrollment.removeOf', { who })}>
          {t('sequences.enrollment.remove')}
        </Button>
      </Popconfirm>
    </Flex>
  );
}
