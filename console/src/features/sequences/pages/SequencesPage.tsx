import { PlusOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Skeleton, Table, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { useWide } from '../../../shared/ui/useWide.ts';
import { usePeople } from '../../tasks/index.ts';
import { type SequenceSummary, sequenceQueries } from '../api.ts';
import { SendSettingsCard } from '../components/SendSettingsCard.tsx';

const COUNTED = ['active', 'paused', 'finished', 'exited'] as const;

function Sequences() {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('sequences');
  const { manages } = usePeople(appId);
  const list = useQuery(sequenceQueries.list(appId));
  const wide = useWide();
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
              dataSource={list.data}
              columns={
                wide
                  ? [
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
                          s.enrollments[k] > 0 ? (
                            <Tag color={k === 'active' ? '#2e7d32' : undefined}>{s.enrollments[k]}</Tag>
                          ) : (
                            <span>0</span>
                          ),
                      })),
                    ]
                  : [
                      {
                        key: 'name',
                        title: t('sequences.page.name'),
                        // A phone: the counts under the name, in words, rather than columns off the screen.
                        render: (_, s) => (
                          <Flex vertical gap={2}>
                            <Link to={`/p/${appId}/sequences/${s.id}`}>{s.name}</Link>
                            <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                              {[
                                t('sequences.page.stepCount', { count: s.steps.length }),
                                ...COUNTED.map((k) => `${t(`sequences.states.${k}`)} ${s.enrollments[k]}`),
                              ].join(' · ')}
                            </Typography.Text>
                          </Flex>
                        ),
                      },
                    ]
              }
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
