import { ImportOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Badge, Button, Card, Empty, Flex, Grid, Input, List, Select, Space, Table, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { memberQueries } from '../../members/index.ts';
import { type CustomerListItem, type CustomerListParams, customerQueries } from '../api.ts';
import { CustomerFormDrawer } from '../components/CustomerFormDrawer.tsx';
import { importQueries, refreshCustomers } from '../import/api.ts';
import { ExportButton } from '../import/ExportButton.tsx';
import { ImportWizard } from '../import/ImportWizard.tsx';
import { isSettled, noticedImport, percentDone, runningImport } from '../import/model.ts';

const PAGE_SIZE = 20;
/** The group filter's value for "in no group" (the API's empty group_id). */
const NO_GROUP = '-';

const ONE_LINE = { display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/** The list's state, all of it in the URL: a link or a reload shows the same list. */
function useListParams(appId: string): [CustomerListParams, (patch: Record<string, string | undefined>) => void] {
  const [search, setSearch] = useSearchParams();
  const group = search.get('group') ?? undefined;
  const params: CustomerListParams = {
    appId,
    owner: search.get('owner') ?? 'all',
    keyword: search.get('q') ?? '',
    group: group === NO_GROUP ? '' : group,
    page: Math.max(1, Number(search.get('page')) || 1),
    pageSize: PAGE_SIZE,
  };
  const update = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    // A new filter starts from its first page.
    if (!('page' in patch)) next.delete('page');
    setSearch(next);
  };
  return [params, update];
}

export function CustomersPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [params, update] = useListParams(appId);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState<{ resume?: string } | null>(null);
  const me = useQuery(meQuery());
  const imports = useQuery({ ...importQueries.recent(appId, me.data?.id ?? 0), enabled: me.data !== undefined });
  // The import the notice above the list shows: the running one, kept once it ends until the user has seen how.
  const [watched, setWatched] = useState<string | null>(null);
  const runningId = runningImport(imports.data ?? [])?.id;
  useEffect(() => {
    if (runningId !== undefined) setWatched(runningId);
  }, [runningId]);
  const noticed = noticedImport(imports.data ?? [], watched);
  // Its customers join the list as soon as it is over (the live stream's refreshes come a second apart).
  const client = useQueryClient();
  const ended = noticed && isSettled(noticed) ? noticed.id : undefined;
  useEffect(() => {
    if (ended !== undefined) void refreshCustomers(client, appId);
  }, [ended, client, appId]);
  const members = useQuery(memberQueries.list(appId));
  const groups = useQuery(customerQueries.groups(appId));
  const list = useQuery(customerQueries.list(params));
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const seesAll = myRole === 'Master' || myRole === 'Admin';
  const rows = list.data?.rows ?? [];
  // The list is dimmed only while it is replaced (a first load, another page or filter), not while a
  // live event refreshes it in the background: that happens every few seconds on a busy project.
  const replacing = list.isLoading || (list.isFetching && list.isPlaceholderData);
  const filtered = params.keyword !== '' || params.group !== undefined || params.owner !== 'all';
  const groupName = (c: CustomerListItem) => c.groupName || (c.groupId ? groups.data?.find((g) => g.id === c.groupId)?.name : '') || '';
  const href = (c: CustomerListItem) => `/p/${appId}/customers/${c.id}`;
  const nameOf = (c: CustomerListItem) => c.name || t('customers.unnamed');
  const isNew = (c: CustomerListItem) => (c.isNew === 1 ? <Tag color="red">{t('customers.newBadge')}</Tag> : null);
  const activity = (c: CustomerListItem) =>
    c.newCount > 0 ? <Badge count={t('customers.newActivity', { count: c.newCount })} color="#1565c0" /> : null;

  const filters = (
    <Flex wrap gap={8} style={{ marginBottom: 16 }}>
      <Input.Search
        key={params.keyword}
        aria-label={t('customers.searchLabel')}
        placeholder={t('customers.search')}
        defaultValue={params.keyword}
        allowClear
        enterButton
        onSearch={(q) => update({ q: q.trim() })}
        style={{ width: wide ? 320 : '100%' }}
      />
      <Select
        aria-label={t('customers.group')}
        style={{ width: wide ? 180 : '100%' }}
        value={params.group === undefined ? '' : params.group === '' ? NO_GROUP : params.group}
        onChange={(v: string) => update({ group: v || undefined })}
        options={[
          { value: '', label: t('customers.anyGroup') },
          { value: NO_GROUP, label: t('customers.noGroup') },
          ...(groups.data ?? []).map((g) => ({ value: g.id, label: g.name })),
        ]}
      />
      {seesAll && (
        <Select
          aria-label={t('customers.owner')}
          style={{ width: wide ? 180 : '100%' }}
          value={params.owner}
          onChange={(v: string) => update({ owner: v === 'all' ? undefined : v })}
          options={[
            { value: 'all', label: t('customers.allOwners') },
            ...(members.data ?? []).map((m) => ({ value: String(m.svcUserId), label: m.user?.userName || String(m.svcUserId) })),
          ]}
        />
      )}
    </Flex>
  );

  const empty = <Empty description={t(filtered ? 'customers.emptyFiltered' : 'customers.empty')} />;
  const table = (
    <Table<CustomerListItem>
      rowKey="id"
      loading={replacing}
      dataSource={rows}
      pagination={false}
      locale={{ emptyText: empty }}
      onRow={(c) => ({ onClick: (e) => !(e.target as HTMLElement).closest('a') && void navigate(href(c)), style: { cursor: 'pointer' } })}
      columns={[
        {
          title: t('customers.columns.name'),
          key: 'name',
          render: (_, c) => (
            <Space size={4} wrap>
              <Link to={href(c)}>{nameOf(c)}</Link>
              {isNew(c)}
              {activity(c)}
            </Space>
          ),
        },
        { title: t('customers.columns.company'), key: 'company', render: (_, c) => c.company || t('common.none') },
        { title: t('customers.columns.contact'), key: 'contact', render: (_, c) => c.phone || c.email || t('common.none') },
        { title: t('customers.columns.group'), key: 'group', render: (_, c) => groupName(c) || t('common.none') },
        { title: t('customers.columns.updated'), key: 'updated', render: (_, c) => <DateTime value={c.updatedAt} relative /> },
      ]}
    />
  );
  const cards = (
    <List
      loading={replacing}
      dataSource={rows}
      locale={{ emptyText: empty }}
      renderItem={(c) => (
        <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
          <Card size="small" style={{ width: '100%' }} onClick={() => void navigate(href(c))}>
            <Flex justify="space-between" align="start" gap={8}>
              <Flex vertical gap={2} style={{ minWidth: 0 }}>
                <Space size={4} wrap>
                  <Link to={href(c)} style={{ fontWeight: 600 }}>
                    {nameOf(c)}
                  </Link>
                  {isNew(c)}
                </Space>
                {/* Cut by CSS: antd's measured ellipsis lays the page out again for each card. */}
                <Typography.Text type="secondary" style={ONE_LINE}>
                  {[c.company, c.phone || c.email].filter(Boolean).join(' · ') || t('common.none')}
                </Typography.Text>
                {activity(c)}
              </Flex>
              <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap', fontSize: 12 }}>
                <DateTime value={c.updatedAt} relative />
              </Typography.Text>
            </Flex>
          </Card>
        </List.Item>
      )}
    />
  );

  return (
    <>
      <PageHeader
        title={t('customers.title')}
        extra={
          <>
            <Button icon={<ImportOutlined />} onClick={() => setImporting({})} disabled={!me.data}>
              {t('customers.import.button')}
            </Button>
            <ExportButton params={params} isManager={seesAll} />
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} loading={me.isLoading}>
              {t('customers.new')}
            </Button>
          </>
        }
      />
      {noticed && !importing && (
        <Alert
          type={!isSettled(noticed) ? 'info' : noticed.status === 'failed' ? 'error' : 'success'}
          showIcon
          style={{ marginBottom: 16 }}
          message={
            !isSettled(noticed)
              ? t('customers.import.runningBanner', { file: noticed.fileName, percent: percentDone(noticed) })
              : noticed.status === 'failed'
                ? t('customers.import.failedBanner', { file: noticed.fileName })
                : t('customers.import.finishedBanner', {
                    file: noticed.fileName,
                    created: noticed.created,
                    updated: noticed.updated,
                    skipped: noticed.skipped,
                    failed: noticed.failed,
                  })
          }
          closable={isSettled(noticed)}
          onClose={() => setWatched(null)}
          action={
            <Button size="small" onClick={() => setImporting({ resume: noticed.id })}>
              {t('customers.import.show')}
            </Button>
          }
        />
      )}
      {filters}
      {wide ? table : cards}
      {(params.page > 1 || list.data?.hasMore) && (
        <Flex justify="center" align="center" gap={12} style={{ marginTop: 16 }}>
          <Button disabled={params.page <= 1} onClick={() => update({ page: String(params.page - 1) })}>
            {t('common.actions.previous')}
          </Button>
          <Typography.Text>{t('common.page.of', { page: params.page })}</Typography.Text>
          <Button disabled={!list.data?.hasMore} onClick={() => update({ page: String(params.page + 1) })}>
            {t('common.actions.next')}
          </Button>
        </Flex>
      )}
      {me.data && (
        <ImportWizard
          appId={appId}
          me={me.data.id}
          isManager={seesAll}
          open={importing !== null}
          resume={importing?.resume}
          onClose={(seenEnded) => {
            setImporting(null);
            if (seenEnded !== undefined && seenEnded === watched) setWatched(null);
          }}
        />
      )}
      {me.data && (
        <CustomerFormDrawer
          appId={appId}
          actingUserId={me.data.id}
          open={creating}
          onClose={() => setCreating(false)}
          onSaved={() => {
            setCreating(false);
            void message.success(t('customers.created'));
          }}
        />
      )}
    </>
  );
}
