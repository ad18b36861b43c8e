import { useQuery } from '@tanstack/react-query';
import { Card, Flex, List, Segmented, Table, Typography } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { Pager } from '../../../shared/ui/Pager.tsx';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { useWide } from '../../../shared/ui/useWide.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { sequenceQueries } from '../api.ts';
import { ENROLLMENT_STATES, type EnrollmentState } from '../model.ts';
import { EnrollmentActions } from './EnrollmentActions.tsx';
import { StateTag } from './StateTag.tsx';

/** A sequence's enrolments, by state, a page at a time: who, where they are, and pause/resume/end each. */
export function EnrollmentsList({ appId, sequenceId, stepCount }: { appId: string; sequenceId: string; stepCount: number }) {
  const { t } = useLazyTexts('sequences');
  const [state, setState] = useState<EnrollmentState | 'any'>('any');
  const [page, setPage] = useState(1);
  const list = useQuery(sequenceQueries.enrollments(appId, sequenceId, state === 'any' ? undefined : state, page));
  const rows = list.data?.rows ?? [];
  // A phone shows each enrolment as a short block, its buttons in sight; a wide screen a table.
  const wide = useWide();
  const nextStep = (step: number) => t('sequences.enrollments.nextStep', { n: Math.min(step, stepCount - 1) + 1, of: stepCount });
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('sequences.enrollments.title')}</h2>}>
      <Flex vertical gap={12}>
        <Segmented
          aria-label={t('sequences.enrollments.state')}
          value={state}
          onChange={(v) => {
            setState(v as EnrollmentState | 'any');
            setPage(1);
          }}
          options={[
            { value: 'any', label: t('sequences.enrollments.any') },
            ...ENROLLMENT_STATES.map((s) => ({ value: s, label: t(`sequences.states.${s}`) })),
          ]}
          style={{ alignSelf: 'flex-start', maxWidth: '100%', overflowX: 'auto' }}
        />
        {wide ? (
          <Table
            size="small"
            rowKey="id"
            loading={list.isFetching}
            pagination={false}
            scroll={{ x: 640 }}
            dataSource={rows}
            locale={{ emptyText: t('sequences.enrollments.empty') }}
            columns={[
              {
                key: 'customer',
                title: t('sequences.enrollments.customer'),
                render: (_, e) => <Link to={`/p/${appId}/customers/${e.customerId}`}>{e.customerName || e.customerId}</Link>,
              },
              {
                key: 'state',
                title: t('sequences.enrollments.stateCol'),
                render: (_, e) => <StateTag state={e.state} reason={e.exitReason} />,
              },
              {
                key: 'step',
                title: t('sequences.enrollments.step'),
                render: (_, e) => (e.state === 'active' || e.state === 'paused' ? nextStep(e.step) : ''),
              },
              { key: 'due', title: t('sequences.enrollments.due'), render: (_, e) => (e.dueAt ? <DateTime value={e.dueAt} /> : '') },
              {
                key: 'actions',
                title: t('sequences.enrollments.actions'),
                render: (_, e) => <EnrollmentActions appId={appId} id={e.id} state={e.state} who={e.customerName || e.customerId} />,
              },
            ]}
          />
        ) : (
          <List
            size="small"
            loading={list.isFetching}
            dataSource={rows}
            locale={{ emptyText: t('sequences.enrollments.empty') }}
            renderItem={(e) => (
              <List.Item data-enrollment={e.id} style={{ paddingInline: 0 }}>
                <Flex vertical gap={4} style={{ width: '100%' }}>
                  <Flex gap={8} align="center" wrap justify="space-between">
                    <Link to={`/p/${appId}/customers/${e.customerId}`}>{e.customerName || e.customerId}</Link>
                    <StateTag state={e.state} reason={e.exitReason} />
                  </Flex>
                  {(e.state === 'active' || e.state === 'paused') && (
                    <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                      {t('sequences.enrollments.step')}: {nextStep(e.step)}
                      {e.dueAt ? (
                        <>
                          {' · '}
                          {t('sequences.enrollments.due')} <DateTime value={e.dueAt} />
                        </>
                      ) : null}
                    </Typography.Text>
                  )}
                  <EnrollmentActions appId={appId} id={e.id} state={e.state} who={e.customerName || e.customerId} />
                </Flex>
              </List.Item>
            )}
          />
        )}
        <Pager page={page} hasMore={list.data?.hasMore ?? false} onPage={setPage} />
      </Flex>
    </Card>
  );
}
