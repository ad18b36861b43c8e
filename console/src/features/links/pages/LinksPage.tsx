import { ArrowLeftOutlined, CopyOutlined, FolderOpenOutlined, PlusOutlined, QrcodeOutlined, StopOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Badge, Button, Card, Drawer, Empty, Flex, Grid, List, Modal, Popconfirm, Result, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { parseServerTime } from '../../../shared/time/serverTime.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { type LinkItem, linkQueries, useDisableLink } from '../api.ts';
import { LinkDetail } from '../components/LinkDetail.tsx';
import { LinkFormDrawer } from '../components/LinkFormDrawer.tsx';
import { ShareLink, useCopyLink } from '../components/ShareLink.tsx';
import { linkKind, linkState } from '../model.ts';

// Dark enough for the tag's white text (WCAG AA).
const STATE_COLOR = { active: '#2e7d32', disabled: 'default', expired: '#a15c00' } as const;

/** The project's links: make one (a deck or a web page), share it, and see who opened it. */
export function LinksPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [search, setSearch] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const openId = search.get('link') ?? undefined;
  const list = useQuery(linkQueries.list(appId, page));
  const disable = useDisableLink(appId);
  const copy = useCopyLink();
  const [creating, setCreating] = useState(false);
  const [shared, setShared] = useState<LinkItem>();
  const [qrOf, setQrOf] = useState<LinkItem>();
  const rows = list.data?.rows ?? [];
  const opened = openId ? rows.find((l) => l.id === openId) : undefined;

  const go = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    setSearch(next);
  };
  const state = (l: LinkItem) => linkState(l, new Date(), (s) => parseServerTime(s)?.toDate());
  const badges = (l: LinkItem) => {
    const s = state(l);
    return (
      <>
        <Tag>{t(`links.kinds.${linkKind(l.type)}`)}</Tag>
        {s !== 'active' && <Tag color={STATE_COLOR[s]}>{t(`links.states.${s}`)}</Tag>}
        {l.newViewCount > 0 && <Badge count={t('links.newViews', { count: l.newViewCount })} color="#1565c0" />}
      </>
    );
  };
  const nameLink = (l: LinkItem) => (
    <Link
      to={`?${new URLSearchParams({ ...(page > 1 ? { page: String(page) } : {}), link: l.id }).toString()}`}
      style={{ fontWeight: 600 }}
    >
      {l.name || t('common.none')}
    </Link>
  );
  const actions = (l: LinkItem) =>
    l.status === 1 && l.url ? (
      <Space size={4} wrap>
        <Button size="small" icon={<CopyOutlined />} onClick={() => copy(l.url ?? '')}>
          {t('links.copy')}
        </Button>
        <Button size="small" icon={<QrcodeOutlined />} aria-label={t('links.qr')} onClick={() => setQrOf(l)} />
        <Popconfirm
          title={t('links.disableConfirm', { name: l.name ?? '' })}
          okText={t('links.disable')}
          okButtonProps={{ danger: true }}
          cancelText={t('common.actions.cancel')}
          onConfirm={() => void disable.mutateAsync(l.id).then(() => message.success(t('links.disabled')))}
        >
          <Button size="small" danger icon={<StopOutlined />} aria-label={t('links.disable')} />
        </Popconfirm>
      </Space>
    ) : null;

  const empty = <Empty description={t('links.empty')} />;
  const content = list.isError ? (
    <Result
      status="warning"
      title={t('links.loadFailed')}
      subTitle={errorText(list.error)}
      extra={<Button onClick={() => void list.refetch()}>{t('common.actions.retry')}</Button>}
    />
  ) : wide ? (
    <Table<LinkItem>
      rowKey="id"
      loading={list.isLoading}
      dataSource={rows}
      pagination={false}
      locale={{ emptyText: empty }}
      columns={[
        {
          title: t('links.columns.name'),
          key: 'name',
          render: (_, l) => (
            <Flex vertical gap={2}>
              <Space size={4} wrap>
                {nameLink(l)}
                {badges(l)}
              </Space>
              {l.customer ? (
                <Typography.Text type="secondary">{t('links.directedTo', { name: l.customer.name ?? '' })}</Typography.Text>
              ) : null}
            </Flex>
          ),
        },
        { title: t('links.columns.views'), key: 'views', align: 'right', render: (_, l) => l.linkViewLogCount },
        { title: t('links.columns.viewers'), key: 'viewers', align: 'right', render: (_, l) => l.viewerCount },
        { title: t('links.columns.leads'), key: 'leads', align: 'right', render: (_, l) => l.clueCount },
        { title: t('links.columns.created'), key: 'created', render: (_, l) => <DateTime value={l.createdAt} relative /> },
        { title: t('links.columns.actions'), key: 'actions', render: (_, l) => actions(l) },
      ]}
    />
  ) : (
    <List
      loading={list.isLoading}
      dataSource={rows}
      locale={{ emptyText: empty }}
      renderItem={(l) => (
        <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
          <Card size="small" style={{ width: '100%' }}>
            <Flex vertical gap={6}>
              <Space size={4} wrap>
                {nameLink(l)}
                {badges(l)}
              </Space>
              <Typography.Text type="secondary">
                {t('links.columns.views')} {l.linkViewLogCount} · {t('links.columns.viewers')} {l.viewerCount} ·{' '}
                <DateTime value={l.createdAt} relative />
              </Typography.Text>
              {actions(l)}
            </Flex>
          </Card>
        </List.Item>
      )}
    />
  );

  return (
    <>
      <PageHeader
        title={t('links.title')}
        extra={
          <>
            <Link to={`/p/${appId}/rooms`}>
              <Button icon={<FolderOpenOutlined />}>{t('links.rooms')}</Button>
            </Link>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
              {t('links.new')}
            </Button>
          </>
        }
      />
      <Typography.Paragraph type="secondary">{t('links.intro')}</Typography.Paragraph>
      {content}
      {(page > 1 || list.data?.hasMore) && (
        <Flex justify="center" align="center" gap={12} style={{ marginTop: 16 }}>
          <Button disabled={page <= 1} onClick={() => go({ page: String(page - 1), link: undefined })}>
            {t('common.actions.previous')}
          </Button>
          <Typography.Text>{t('common.page.of', { page })}</Typography.Text>
          <Button disabled={!list.data?.hasMore} onClick={() => go({ page: String(page + 1), link: undefined })}>
            {t('common.actions.next')}
          </Button>
        </Flex>
      )}
      <LinkFormDrawer
        appId={appId}
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(l) => {
          setCreating(false);
          setShared(l);
          void message.success(t('links.form.created'));
        }}
      />
      <Modal
        open={shared !== undefined}
        title={t('links.share.title', { name: shared?.name ?? '' })}
        footer={null}
        onCancel={() => setShared(undefined)}
        destroyOnHidden
      >
        {shared?.url ? <ShareLink url={shared.url} name={shared.name ?? ''} /> : null}
      </Modal>
      <Modal
        open={qrOf !== undefined}
        title={t('links.qrTitle', { name: qrOf?.name ?? '' })}
        footer={null}
        onCancel={() => setQrOf(undefined)}
        destroyOnHidden
      >
        {qrOf?.url ? <ShareLink url={qrOf.url} name={qrOf.name ?? ''} /> : null}
      </Modal>
      <Drawer
        open={openId !== undefined}
        title={opened?.name ?? t('links.title')}
        width={wide ? 800 : '100%'}
        onClose={() => go({ link: undefined })}
        destroyOnHidden
        extra={
          <Button type="text" icon={<ArrowLeftOutlined />} onClick={() => go({ link: undefined })}>
            {t('links.detail.back')}
          </Button>
        }
      >
        {opened ? (
          <LinkDetail appId={appId} link={opened} />
        ) : list.isLoading ? null : (
          <Result status="404" title={t('links.detail.notFound')} />
        )}
      </Drawer>
    </>
  );
}
