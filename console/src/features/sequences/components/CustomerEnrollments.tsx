import { useQuery } from '@tanstack/react-query';
import { Card, Empty, Flex, List, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { sequenceQueries } from '../api.ts';
import { EnrollmentActions } from './EnrollmentActions.tsx';
import { StateTag } from './StateTag.tsx';

interface Props {
  appId: string;
  customerId: string;
  /** The customer's name, for the buttons' accessible names. */
  name: string;
}

function Enrollments({ appId, customerId, name }: Props) {
  const { t } = useLazyTexts('sequences');
  const list = useQuery(sequenceQueries.ofCustomer(appId, customerId));
  const rows = list.data ?? [];
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('sequences.customer.title')}</h2>} data-enrollments>
      {list.isLoading ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : rows.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('sequences.customer.empty')} />
      ) : (
        <List
          size="small"
          dataSource={rows}
          renderItem={(e) => (
            <List.Item data-enrollment={e.id} style={{ paddingInline: 0 }}>
              <Flex vertical gap={4} style={{ width: '100%' }}>
                <Flex gap={8} align="center" wrap justify="space-between">
                  <Link to={`/p/${appId}/sequences/${e.sequenceId}`}>{e.sequenceName || e.sequenceId}</Link>
                  <StateTag state={e.state} reason={e.exitReason} />
                </Flex>
                <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                  {e.state === 'finished' ? (
                    t('sequences.customer.finished')
                  ) : e.state === 'exited' ? (
                    t('sequences.customer.exitedAt', { n: e.step + 1 })
                  ) : e.state === 'active' && e.dueAt ? (
                    <>
                      {t('sequences.customer.nextStepDue', { n: e.step + 1 })} <DateTime value={e.dueAt} />
                    </>
                  ) : (
                    t('sequences.customer.nextStep', { n: e.step + 1 })
                  )}
                </Typography.Text>
                <EnrollmentActions appId={appId} id={e.id} state={e.state} who={e.sequenceName || name} />
              </Flex>
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}

/** A customer's enrolments in sequences, on their page: each one's state, step and exit reason, and pause/resume/end. Its texts load with it. */
export function CustomerEnrollments(props: Props) {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 2 }} />}>
      <Enrollments {...props} />
    </Suspense>
  );
}
