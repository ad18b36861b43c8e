import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Descriptions, Empty, Flex, List, Skeleton, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { durationParts, pagesRead } from '../../../shared/behaviour/model.ts';
import { type LinkItem, linkQueries } from '../api.ts';
import { linkKind } from '../model.ts';
import { LinkAnalytics } from './LinkAnalytics.tsx';
import { ShareLink } from './ShareLink.tsx';

/** A duration for a person ("3 min 20 s"). */
function useDuration(): (ms: number) => string {
  const { t } = useTranslation();
  return (ms) => {
    const d = durationParts(ms);
    return t(`customer.duration.${d.key}`, d.values);
  };
}

/** One link: how it was read (first), its share address and QR code, its settings, and each view. */
export function LinkDetail({ appId, link }: { appId: string; link: LinkItem }) {
  const { t } = useTranslation();
  const duration = useDuration();
  const views = useQuery(linkQueries.viewLogs(appId, link.id));
  const yesNo = (v: number | boolean) => t(v ? 'links.detail.yes' : 'links.detail.no');
  const h2 = (text: string) => <h2 style={{ fontSize: 16, margin: 0 }}>{text}</h2>;

  return (
    <Flex vertical gap={16}>
      {/* Its texts load with it. */}
      <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
        <LinkAnalytics appId={appId} link={link} />
      </Suspense>
      {link.url && link.status === 1 ? <ShareLink url={link.url} name={link.name ?? ''} /> : null}
      <Card size="small" title={h2(t('links.detail.settings'))}>
        <Descriptions
          column={1}
          size="small"
          items={[
            ...(linkKind(link.type) === 'file' || linkKind(link.type) === 'room'
              ? []
              : [{ key: 'website', label: t('links.detail.website'), children: link.website ?? t('common.none') }]),
            ...(link.customer
              ? [
                  {
                    key: 'customer',
                    label: t('links.detail.customer'),
                    children: <Link to={`/p/${appId}/customers/${link.customer.id}`}>{link.customer.name || link.customer.id}</Link>,
                  },
                ]
              : []),
            { key: 'passcode', label: t('links.detail.passcode'), children: yesNo(link.hasPasscode) },
            {
              key: 'expires',
              label: t('links.detail.expires'),
              children: link.expiresAt ? <DateTime value={link.expiresAt} /> : t('links.detail.never'),
            },
            ...(linkKind(link.type) === 'file'
              ? [
                  { key: 'download', label: t('links.detail.download'), children: yesNo(link.allowDownload) },
                  { key: 'watermark', label: t('links.detail.watermark'), children: yesNo(link.watermark) },
                ]
              : linkKind(link.type) === 'room'
                ? [{ key: 'download', label: t('links.detail.download'), children: yesNo(link.allowDownload) }]
                : []),
            { key: 'gate', label: t('links.detail.emailGate'), children: yesNo(link.emailGate) },
          ]}
        />
      </Card>
      <Card size="small" title={h2(t('links.detail.views'))}>
        <List
          loading={views.isLoading}
          dataSource={views.data ?? []}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('links.detail.viewsEmpty')} /> }}
          renderItem={(v) => {
            const pages = pagesRead(v.durations);
            const ms = v.totalDuration ?? pages.reduce((s, p) => s + p.ms, 0);
            return (
              <List.Item data-view-log={v.id}>
                <Flex vertical gap={2} style={{ minWidth: 0, width: '100%' }}>
                  <Flex justify="space-between" gap={8} wrap>
                    <Typography.Text strong>{v.viewerName || t('links.detail.anonymous')}</Typography.Text>
                    <Typography.Text type="secondary">
                      <DateTime value={v.viewTime} relative />
                    </Typography.Text>
                  </Flex>
                  <Flex gap={8} wrap align="center">
                    {v.leaveTime ? null : <Badge status="processing" text={t('links.detail.reading')} />}
                    <Typography.Text>
                      {t('links.detail.read', { duration: duration(ms), count: v.totalPage ?? pages.length })}
                    </Typography.Text>
                  </Flex>
                  {pages.length > 0 && (
                    <Flex gap={4} wrap>
                      {pages.map((p) => (
                        <Tag key={p.page}>
                          {t('links.detail.page', { page: p.page })}: {duration(p.ms)}
                        </Tag>
                      ))}
                    </Flex>
                  )}
                  {v.system || v.client ? (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {[v.system, v.client, v.location].filter(Boolean).join(' · ')}
                    </Typography.Text>
                  ) : null}
                </Flex>
              </List.Item>
            );
          }}
        />
      </Card>
    </Flex>
  );
}
