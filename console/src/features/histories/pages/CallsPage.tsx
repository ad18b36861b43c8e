import { useQuery } from '@tanstack/react-query';
import { Card, Empty, Flex, Grid, List, Result, Segmented, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { durationParts } from '../../../shared/behaviour/model.ts';
import { type Call, historyQueries } from '../api.ts';
import { Pager } from '../../../shared/ui/Pager.tsx';

/** The project's calls, newest first, read-only (they come from the phone system's integration). */
export function CallsPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [search, setSearch] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const raw = search.get('status');
  const status = raw === '0' ? 0 : raw === '1' ? 1 : undefined;
  const calls = useQuery(historyQueries.calls(appId, page, status));
  const rows = calls.data?.rows ?? [];
  const go = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    setSearch(next);
  };
  const length = (c: Call) => {
    const d = durationParts(c.duration * 1000);
    return t(`customer.duration.${d.key}`, d.values);
  };
  const who = (c: Call) =>
    c.customer ? (
      <Link to={`/p/${appId}/customers/${c.customer.id}`}>{c.customer.name || c.phoneNum || c.customer.id}</Link>
    ) : (
      <span>{c.name || c.phoneNum || t('common.none')}</span>
    );
  const state = (c: Call) =>
    c.callStatus === 1 ? (
      <Tag color="#2e7d32">{t('histories.calls.connected')}</Tag>
    ) : (
      <Tag color="#c62828">{t('histories.calls.missed')}</Tag>
    );
  const direction = (c: Call) => t(c.fromUserType === 1 ? 'histories.calls.incoming' : 'histories.calls.outgoing');
  const empty = <Empty description={t('histories.calls.empty')} />;

  return (
    <>
      <PageHeader title={t('histories.calls.title')} />
      <Typography.Paragraph type="secondary">{t('histories.calls.intro')}</Typography.Paragraph>
      <Segmented
        aria-label={t('histories.calls.filter')}
        style={{ marginBottom: 16 }}
        value={raw ?? 'all'}
        onChange={(v) => go({ status: v === 'all' ? undefined : String(v), page: undefined })}
        options={[
          { value: 'all', label: t('histories.calls.all') },
          { value: '1', label: t('histories.calls.connected') },
          { value: '0', label: t('histories.calls.missed') },
        ]}
      />
      {calls.isError ? (
        <Result status="warning" title={t('histories.loadFailed')} subTitle={errorText(calls.error)} />
      ) : wide ? (
        <Table<Call>
          rowKey="id"
          loading={calls.isLoading || (calls.isFetching && calls.isPlaceholderData)}
          dataSource={rows}
          pagination={false}
          locale={{ emptyText: empty }}
          columns={[
            { title: t('histories.calls.who'), key: 'who', render: (_, c) => who(c) },
            { title: t('histories.calls.direction'), key: 'direction', render: (_, c) => direction(c) },
            { title: t('histories.calls.status'), key: 'status', render: (_, c) => state(c) },
            { title: t('histories.calls.length'), key: 'length', render: (_, c) => length(c) },
            { title: t('histories.calls.when'), key: 'when', render: (_, c) => <DateTime value={c.callTime} /> },
          ]}
        />
      ) : (
        <List
          loading={calls.isLoading}
          dataSource={rows}
          locale={{ emptyText: empty }}
          renderItem={(c) => (
            <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
              <Card size="small" style={{ width: '100%' }}>
                <Flex justify="space-between" gap={8} wrap>
                  {who(c)}
                  {state(c)}
                </Flex>
                <Typography.Text type="secondary">
                  {direction(c)} · {length(c)} · <DateTime value={c.callTime} />
                </Typography.Text>
              </Card>
            </List.Item>
          )}
        />
      )}
      <Pager page={page} hasMore={Boolean(calls.data?.hasMore)} onPage={(p) => go({ page: String(p) })} />
    </>
  );
}
