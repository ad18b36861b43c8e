import { useQuery } from '@tanstack/react-query';
import { Card, Flex, Segmented, Table } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { Pager } from '../../../shared/ui/Pager.tsx';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
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
              render: (_, e) =>
                e.state === 'active' || e.state === 'paused'
                  ? t('sequences.enrollments.nextStep', { n: Math.min(e.step, stepCount - 1) + 1, of: stepCount })
                  : '',
            },
            { key: 'due', title: t('sequences.enrollments.due'), render: (_, e) => (e.dueAt ? <DateTime value={e.dueAt} /> : '') },
            {
              key: 'actions',
              title: t('sequences.enrollments.actions'),
              render: (_, e) => <EnrollmentActions appId={appId} id={e.id} state={e.state} who={e.customerName || e.customerId} />,
            },
          ]}
        />
        <Pager page={page} hasMore={list.data?.hasMore ?? false} onPage={setPage} />
      </Flex>
    </Card>
  );
}
