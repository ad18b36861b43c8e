import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Empty, Flex, List, Skeleton, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { durationParts, pagesRead } from '../../../shared/behaviour/model.ts';
import { type LinkItem, linkQueries } from '../api.ts';
import { LinkAgreements } from './LinkAgreements.tsx';
import { LinkAnalytics } from './LinkAnalytics.tsx';
import { LinkSettings } from './LinkSettings.tsx';
import { ShareLink } from './ShareLink.tsx';

/** A duration for a person ("3 min 20 s"). */
function useDuration(): (ms: number) => string {
  const { t } = useTranslation();
  return (ms) => {
    const d = durationParts(ms);
    return t(`customer.duration.${d.key}`, d.values);
  };
}

/** One link: how it was read (first), its share address and QR code, its settings (with the way to edit them), who accepted its agreement, and each view. */
export function LinkDetail({ appId, link, onEdit }: { appId: string; link: LinkItem; onEdit: () => void }) {
  const { t } = useTranslation();
  const duration = useDuration();
  const views = useQuery(linkQueries.viewLogs(appId, link.id));
  const h2 = (text: string) => <h2 style={{ fontSize: 16, margin: 0 }}>{text}</h2>;

  return (
    <Flex vertical gap={16}>
      {/* Its texts load with it. */}
      <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
        <LinkAnalytics appId={appId} link={link} />
      </Suspense>
      {link.url && link.status === 1 ? <ShareLink url={link.url} name={link.name ?? ''} /> : null}
      {/* The gates' texts load with them. */}
      <Suspense fallback={<Skeleton active paragraph={{ rows: 4 }} />}>
        <LinkSettings appId={appId} link={link} onEdit={onEdit} />
        {link.agreement ? <LinkAgreements appId={appId} link={link} /> : null}
      </Suspense>
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
