import { ArrowLeftOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Skeleton, Table, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { type PlaybookSummary, playbookQueries } from '../api.ts';

function Playbooks() {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('playbooks');
  const list = useQuery(playbookQueries.list(appId));
  return (
    <>
      <Link to={`/p/${appId}/sequences`}>
        <ArrowLeftOutlined /> {t('playbooks.page.toSequences')}
      </Link>
      <PageHeader
        title={t('playbooks.page.title')}
        extra={
          <Link to={`/p/${appId}/playbooks/new`}>
            <Button type="primary" icon={<PlusOutlined />}>
              {t('playbooks.page.new')}
            </Button>
          </Link>
        }
      />
      <Typography.Paragraph type="secondary">{t('playbooks.page.intro')}</Typography.Paragraph>
      <Card size="small">
        {list.isLoading ? (
          <Skeleton active />
        ) : (list.data ?? []).length === 0 ? (
          <Empty description={t('playbooks.page.empty')}>
            <Link to={`/p/${appId}/playbooks/new`}>{t('playbooks.page.first')}</Link>
          </Empty>
        ) : (
          <Table<PlaybookSummary>
            size="small"
            rowKey="id"
            pagination={false}
            dataSource={list.data}
            columns={[
              {
                key: 'name',
                title: t('playbooks.page.name'),
                // Whether it is on, beside its name: two columns fit a phone.
                render: (_, p) => (
                  <Flex gap={8} align="center" wrap>
                    <Link to={`/p/${appId}/playbooks/${p.id}`}>{p.name}</Link>
                    {p.enabled ? <Tag color="#2e7d32">{t('playbooks.page.on')}</Tag> : <Tag>{t('playbooks.page.off')}</Tag>}
                  </Flex>
                ),
              },
              {
                key: 'trigger',
                title: t('playbooks.page.trigger'),
                render: (_, p) => {
                  // The API answers the trigger as it was given (its schema leaves it open): its kind names it.
                  const kind = (p.trigger as { kind: string }).kind;
                  return t(`playbooks.kinds.${kind as 'deck_read'}`, { defaultValue: kind });
                },
              },
            ]}
          />
        )}
      </Card>
    </>
  );
}

/** The project's playbooks: what each reacts to and whether it is on, and a new one. */
export function PlaybooksPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Playbooks />
    </Suspense>
  );
}
