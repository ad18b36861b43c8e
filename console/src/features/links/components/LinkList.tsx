import { CopyOutlined, QrcodeOutlined, StopOutlined } from '@ant-design/icons';
import { App, Badge, Button, Card, Empty, Flex, List, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { parseServerTime } from '../../../shared/time/serverTime.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { type LinkItem, useDisableLink } from '../api.ts';
import { linkKind, linkState } from '../model.ts';
import { useCopyLink } from './ShareLink.tsx';

// Dark enough for the tag's white text (WCAG AA).
const STATE_COLOR = { active: '#2e7d32', disabled: 'default', expired: '#a15c00' } as const;

/** A page of the project's links: a table at a desktop's width, cards on a phone; each active one copied, shown as a QR code or disabled. */
export function LinkList({
  appId,
  page,
  rows,
  loading,
  wide,
  onQr,
}: {
  appId: string;
  page: number;
  rows: LinkItem[];
  loading: boolean;
  wide: boolean;
  onQr: (link: LinkItem) => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const disable = useDisableLink(appId);
  const copy = useCopyLink();
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
        <Button size="small" icon={<QrcodeOutlined />} aria-label={t('links.qr')} onClick={() => onQr(l)} />
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
  return wide ? (
    <Table<LinkItem>
      rowKey="id"
      loading={loading}
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
      loading={loading}
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
}
