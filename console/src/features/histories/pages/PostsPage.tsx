import { useQuery } from '@tanstack/react-query';
import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Grid, List, Result, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { type Post, historyQueries } from '../api.ts';
import { Pager } from '../../../shared/ui/Pager.tsx';

/** The project's mass e-mail sends, newest first, with what their sender counted. Read-only. */
export function PostsPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [search, setSearch] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const posts = useQuery(historyQueries.posts(appId, page));
  const rows = posts.data?.rows ?? [];
  const empty = <Empty description={t('histories.posts.empty')} />;
  const counters = (p: Post) =>
    t('histories.posts.counters', {
      sent: p.successLogCount,
      of: p.senderCount,
      opened: p.viewLogUserCount,
      clicked: p.linkViewLogUserCount,
    });

  return (
    <>
      <PageHeader
        title={t('histories.posts.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => void navigate(`/p/${appId}/posts/new`)}>
            {t('campaigns.new')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('histories.posts.intro')}</Typography.Paragraph>
      {posts.isError ? (
        <Result status="warning" title={t('histories.loadFailed')} subTitle={errorText(posts.error)} />
      ) : wide ? (
        <Table<Post>
          rowKey="postId"
          loading={posts.isLoading || (posts.isFetching && posts.isPlaceholderData)}
          dataSource={rows}
          pagination={false}
          locale={{ emptyText: empty }}
          columns={[
            {
              title: t('histories.posts.subject'),
              key: 'title',
              render: (_, p) => <Link to={`/p/${appId}/posts/${p.postId}`}>{p.title || t('common.none')}</Link>,
            },
            { title: t('histories.posts.sender'), key: 'owner', render: (_, p) => p.ownerName || t('common.none') },
            { title: t('histories.posts.recipients'), key: 'to', align: 'right', render: (_, p) => p.senderCount },
            { title: t('histories.posts.delivered'), key: 'ok', align: 'right', render: (_, p) => p.successLogCount },
            { title: t('histories.posts.opened'), key: 'open', align: 'right', render: (_, p) => p.viewLogUserCount },
            { title: t('histories.posts.clicked'), key: 'click', align: 'right', render: (_, p) => p.linkViewLogUserCount },
            { title: t('histories.posts.sent'), key: 'when', render: (_, p) => <DateTime value={p.sendTime} /> },
          ]}
        />
      ) : (
        <List
          loading={posts.isLoading}
          dataSource={rows}
          locale={{ emptyText: empty }}
          renderItem={(p) => (
            <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
              <Card size="small" style={{ width: '100%' }}>
                <Flex vertical gap={2}>
                  <Link to={`/p/${appId}/posts/${p.postId}`}>
                    <strong>{p.title || t('common.none')}</strong>
                  </Link>
                  <Typography.Text>{counters(p)}</Typography.Text>
                  <Typography.Text type="secondary">
                    {p.ownerName || t('common.none')} · <DateTime value={p.sendTime} />
                  </Typography.Text>
                </Flex>
              </Card>
            </List.Item>
          )}
        />
      )}
      <Pager page={page} hasMore={Boolean(posts.data?.hasMore)} onPage={(n) => setSearch(new URLSearchParams({ page: String(n) }))} />
    </>
  );
}
