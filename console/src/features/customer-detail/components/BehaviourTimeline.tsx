import {
  CheckSquareOutlined,
  CustomerServiceOutlined,
  DollarOutlined,
  EditOutlined,
  FileTextOutlined,
  GlobalOutlined,
  MessageOutlined,
  PhoneOutlined,
  UserAddOutlined,
  ThunderboltOutlined,
} from '@ant-design/icons';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Empty, Flex, Progress, Skeleton, Timeline, Typography } from 'antd';
import { type ReactNode, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { customerDetailQueries } from '../api.ts';
import { type BehaviourKind, type BehaviourLike, describeBehaviour, durationParts } from '../../../shared/behaviour/model.ts';
import { oneEntryPerReading } from '../../../shared/behaviour/readings.ts';
import { useBehaviourTitle } from '../../../shared/behaviour/useBehaviourTitle.ts';
import { TeamRecord } from '../../tasks/index.ts';

const ICONS: Record<BehaviourKind, ReactNode> = {
  link: <FileTextOutlined />,
  call: <PhoneOutlined />,
  site: <GlobalOutlined />,
  page: <GlobalOutlined />,
  customer: <UserAddOutlined />,
  message: <MessageOutlined />,
  deal: <DollarOutlined />,
  note: <EditOutlined />,
  task: <CheckSquareOutlined />,
  other: <ThunderboltOutlined />,
};

function useDuration(): (ms: number) => string {
  const { t } = useTranslation();
  return (ms) => {
    const { key, values } = durationParts(ms);
    return t(`customer.duration.${key}`, values);
  };
}

/** What a record adds under its title: pages read and how long, a call's length, a visit's pages. */
function Details({ record }: { record: BehaviourLike }) {
  const { t } = useTranslation();
  const duration = useDuration();
  const view = describeBehaviour(record);
  if (view.kind === 'link' && view.pages && view.pages.length > 0) {
    const longest = Math.max(...view.pages.map((p) => p.ms), 1);
    return (
      <Flex vertical gap={2} style={{ maxWidth: 420 }}>
        <Typography.Text type="secondary">
          {t('customer.totalRead', { duration: duration(view.totalMs ?? 0), count: view.pages.length })}
        </Typography.Text>
        {view.pages.map((p) => (
          <Flex key={p.page} gap={8} align="center">
            <Typography.Text style={{ width: 64, flex: 'none' }}>{t('customer.pageN', { n: p.page })}</Typography.Text>
            {/* A picture of the time written beside it: hidden from screen readers, which read that text. */}
            <Progress percent={(p.ms / longest) * 100} showInfo={false} size="small" style={{ flex: 1, margin: 0 }} aria-hidden />
            <Typography.Text type="secondary" style={{ width: 96, flex: 'none', textAlign: 'right' }}>
              {duration(p.ms)}
            </Typography.Text>
          </Flex>
        ))}
      </Flex>
    );
  }
  if (view.kind === 'call') {
    if (view.callSeconds !== undefined)
      return (
        <Typography.Text type="secondary">{t('customer.callDuration', { duration: duration(view.callSeconds * 1000) })}</Typography.Text>
      );
    return view.callPending ? <Typography.Text type="secondary">{t('customer.callPending')}</Typography.Text> : null;
  }
  if (view.kind === 'site' && view.sitePages && view.sitePages.length > 0) {
    return (
      <Typography.Text type="secondary">
        {t('customer.pagesViewed')}: {view.sitePages.join(' · ')}
      </Typography.Text>
    );
  }
  if (view.kind === 'deal' && view.money)
    return <Typography.Text type="secondary">{t('customer.dealAmount', { money: view.money })}</Typography.Text>;
  return null;
}

/** The customer's behaviour, newest first, the next page loaded as the end comes into view. */
export function BehaviourTimeline({ appId, customerId }: { appId: string; customerId: string }) {
  const { t } = useTranslation();
  const title = useBehaviourTitle();
  const records = useInfiniteQuery(customerDetailQueries.behaviour(appId, customerId));
  const end = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = records;

  useEffect(() => {
    const el = end.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (records.isLoading) return <Skeleton active paragraph={{ rows: 5 }} />;
  // One reading, one entry: its page turns and its leave are in its opening's pages and seconds.
  const all = oneEntryPerReading(records.data?.pages.flat() ?? []);
  if (all.length === 0) return <Empty description={t('customer.noActivity')} />;
  return (
    <>
      <Timeline
        items={all.map((r) => {
          const kind = describeBehaviour(r).kind;
          return {
            key: r.id,
            dot: ICONS[kind] ?? <CustomerServiceOutlined />,
            children: (
              <Flex vertical gap={2} data-behaviour={r.action}>
                <Typography.Text strong>{title(r)}</Typography.Text>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  <DateTime value={r.when} />
                </Typography.Text>
                <Details record={r} />
                {(kind === 'note' || kind === 'task') && <TeamRecord appId={appId} note={r.note} task={r.task} />}
              </Flex>
            ),
          };
        })}
      />
      <div ref={end} />
      {hasNextPage ? (
        <Flex justify="center">
          <Button loading={isFetchingNextPage} onClick={() => void fetchNextPage()}>
            {t('customer.loadMore')}
          </Button>
        </Flex>
      ) : (
        <Typography.Paragraph type="secondary" style={{ textAlign: 'center' }}>
          {t('customer.end')}
        </Typography.Paragraph>
      )}
    </>
  );
}
