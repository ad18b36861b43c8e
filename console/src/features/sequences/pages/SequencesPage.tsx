import { PlusOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Skeleton, Table, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { usePeople } from '../../tasks/index.ts';
import { type SequenceSummary, sequenceQueries } from '../api.ts';
import { SendSettingsCard } from '../components/SendSettingsCard.tsx';

const COUNTED = ['active', 'paused', 'finished', 'exited'] as const;

function Sequences() {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('sequences');
  const { manages } = usePeople(appId);
  const list = useQuery(sequenceQueries.list(appId));
  return (
    <>
      <PageHeader
        title={t('sequences.page.title')}
        extra={
          <>
            <Link to={`/p/${appId}/playbooks`}>
              <Button icon={<ThunderboltOutlined />}>{t('sequences.page.playbooks')}</Button>
            </Link>
            <Link to={`/p/${appId}/sequences/new`}>
              <Button type="primary" icon={<PlusOutlined />}>
                {t('sequences.page.new')}
              </Button>
            </Link>
          </>
        }
      />
      <Typography.Paragraph type="secondary">{t('sequences.page.intro')}</Typography.Paragraph>
      <Flex vertical gap={16}>
        <Card size="small">
          {list.isLoading ? (
            <Skeleton active />
          ) : (list.data ?? []).length === 0 ? (
            <Empty description={t('sequences.page.empty')}>
              <Link to={`/p/${appId}/sequences/new`}>{t('sequences.page.first')}</Link>
            </Empty>
          ) : (
            <Table<SequenceSummary>
              size="small"
              rowKey="id"
              pagination={false}
              scroll={{ x: 560 }}
              dataSource={list.data}
              columns={[
                {
                  key: 'name',
                  title: t('sequences.page.name'),
                  render: (_, s) => <Link to={`/p/${appId}/sequences/${s.id}`}>{s.name}</Link>,
                },
                { key: 'steps', title: t('sequences.page.steps'), render: (_, s) => s.steps.length },
                ...COUNTED.map((k) => ({
                  key: k,
                  title: t(`sequences.states.${k}`),
                  render: (_: unknown, s: SequenceSummary) =>
                    s.enrollments[k] > 0 ? <Tag color={k === 'active' ? 'green' : undefined}>{s.enrollments[k]}</Tag> : <span>0</span>,
                })),
              ]}
            />
          )}
        </Card>
        <SendSettingsCard appId={appId} manages={manages} />
      </Flex>
    </>
  );
}

/** The project's sequences with how many customers are in each state, a new one, and the sending rules. */
export function SequencesPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Sequences />
    </Suspense>
  );
}
