import { DownloadOutlined } from '@ant-design/icons';
import { type UseQueryResult, useQueries, useQuery } from '@tanstack/react-query';
import { App, Button, Card, Col, Empty, Flex, Grid, List, Result, Row, Select, Skeleton, Statistic, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { saveFile } from '../../../shared/api/download.ts';
import { durationParts } from '../../../shared/behaviour/model.ts';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { type ChartImage, LazyChart } from '../../../shared/ui/LazyChart.tsx';
import { type ChartWords, pageChart, percent, readerTag, versionOf, versionValue } from '../analytics.ts';
import type { LinkItem } from '../api.ts';
import { VIEWER_PAGE_SIZE, type VersionFigures, type ViewerFigures, analyticsCsv, analyticsQueries } from '../analyticsApi.ts';

/** Pages whose images are shown beside the chart's bars at most (a longer deck shows their numbers). */
const MAX_IMAGES = 60;

/** The thumbnails' queries as one value: the images once every one has answered (the chart is drawn again once, with them). */
const imagesOf = (results: UseQueryResult[]) => ({
  done: results.every((r) => !r.isPending),
  images: results.map((r) => (r.data ?? null) as ChartImage | null),
});

/**
 * A link's reading analytics, what a seller reads first on the link's page: views, unique viewers,
 * completion and median time (of a version of the deck, picked when there are several), the time
 * on each page beside its image with the page most readers stopped after marked, who read it, and
 * the readers as CSV.
 */
export function LinkAnalytics({ appId, link }: { appId: string; link: LinkItem }) {
  const { t } = useLazyTexts('linkAnalytics');
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [picked, setPicked] = useState<string>();
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const summary = useQuery(analyticsQueries.analytics(appId, link.id, undefined, 1));
  const versions = summary.data?.versions ?? [];
  const version: VersionFigures | undefined = versionOf(versions, picked) ?? versions[0];
  const several = versions.length > 1;
  // With one version its readers are the link's (the first page is the summary's own answer).
  const readers = useQuery(analyticsQueries.analytics(appId, link.id, several ? version : undefined, page));
  const withImages = version !== undefined && version.current && version.pages.length <= MAX_IMAGES;
  const thumbs = useQueries({
    queries: (withImages ? version.pages : []).map((p) =>
      analyticsQueries.pageImage(appId, version?.fileId ?? '', version?.version ?? 0, p.page),
    ),
    combine: imagesOf,
  });

  const time = (seconds: number) => {
    const d = durationParts(seconds * 1000);
    return t(`customer.duration.${d.key}`, d.values);
  };
  const chart = useMemo(() => {
    if (version === undefined) return null;
    const words: ChartWords = {
      page: (n) => t('linkAnalytics.chart.page', { page: n }),
      bar: (tm, reach) => t('linkAnalytics.chart.bar', { time: tm, reach }),
      unread: t('linkAnalytics.chart.unread'),
      dropOff: t('linkAnalytics.chart.dropOff'),
      axis: t('linkAnalytics.chart.axis'),
      tooltip: (n, tm, views, total) => t('linkAnalytics.chart.tooltip', { page: n, time: tm, views, total }),
      time: (s) => {
        const d = durationParts(s * 1000);
        return t(`customer.duration.${d.key}`, d.values);
      },
    };
    return pageChart(version, thumbs.done ? thumbs.images : [], words);
  }, [version, thumbs, t]);

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveFile(await analyticsCsv(appId, link.id, several ? version : undefined));
      void message.success(t('linkAnalytics.exported'));
    } catch (err) {
      void message.error(errorText(err));
    } finally {
      setExporting(false);
    }
  };

  if (summary.isError) {
    return (
      <Result
        status="warning"
        title={t('linkAnalytics.loadFailed')}
        subTitle={errorText(summary.error)}
        extra={<Button onClick={() => void summary.refetch()}>{t('common.actions.retry')}</Button>}
      />
    );
  }
  const data = summary.data;
  const h2 = <h2 style={{ fontSize: 16, margin: 0 }}>{t('linkAnalytics.title')}</h2>;
  const h3 = (text: string) => <h3 style={{ fontSize: 14, margin: '0 0 8px' }}>{text}</h3>;
  const none = t('common.none');
  const kpis = [
    {
      key: 'views',
      title: t('linkAnalytics.kpi.views'),
      value: String(version?.views ?? data?.views ?? 0),
      help: data && version && data.views !== version.views ? t('linkAnalytics.kpi.viewsOfLink', { count: data.views }) : undefined,
    },
    {
      key: 'viewers',
      title: t('linkAnalytics.kpi.uniqueViewers'),
      value: String(version?.uniqueViewers ?? data?.uniqueViewers ?? 0),
      help: t('linkAnalytics.kpi.uniqueViewersHelp'),
    },
    {
      key: 'completion',
      title: t('linkAnalytics.kpi.completion'),
      value: version ? `${percent(version.completion)}%` : none,
      help: t('linkAnalytics.kpi.completionHelp'),
    },
    {
      key: 'median',
      title: t('linkAnalytics.kpi.median'),
      value: version ? time(version.medianSeconds) : none,
      help: t('linkAnalytics.kpi.medianHelp'),
    },
  ];
  const total = several ? (version?.uniqueViewers ?? 0) : (data?.uniqueViewers ?? 0);
  const rows = readers.data?.viewers ?? [];
  const reader = (v: ViewerFigures) => {
    const name = v.viewerName || t('linkAnalytics.viewers.anonymous', { id: readerTag(v.viewerId) });
    return v.customerId ? <Link to={`/p/${appId}/customers/${v.customerId}`}>{name}</Link> : <Typography.Text>{name}</Typography.Text>;
  };
  const readShare = (v: ViewerFigures) => (v.completion === null ? none : `${percent(v.completion)}%`);
  const pagination = {
    current: page,
    pageSize: VIEWER_PAGE_SIZE,
    total,
    onChange: setPage,
    showSizeChanger: false,
    hideOnSinglePage: true,
    size: 'small' as const,
  };
  const readersEmpty = <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('linkAnalytics.viewers.empty')} />;

  return (
    <Card
      size="small"
      title={h2}
      data-link-analytics
      extra={
        <Button
          size="small"
          icon={<DownloadOutlined />}
          loading={exporting}
          disabled={!data || total === 0}
          onClick={() => void exportCsv()}
        >
          {t('linkAnalytics.export')}
        </Button>
      }
    >
      {summary.isLoading || !data ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : (
        <Flex vertical gap={16}>
          {several && version ? (
            <Flex align="center" gap={8} wrap>
              <label htmlFor={`versions-${link.id}`}>{t('linkAnalytics.version.label')}</label>
              <Select
                id={`versions-${link.id}`}
                style={{ minWidth: 220 }}
                value={versionValue(version)}
                onChange={(value: string) => {
                  setPicked(value);
                  setPage(1);
                }}
                options={versions.map((v) => ({
                  value: versionValue(v),
                  label: `${t(v.current ? 'linkAnalytics.version.current' : 'linkAnalytics.version.option', { version: v.version })} · ${t(
                    'linkAnalytics.version.views',
                    { count: v.views },
                  )}`,
                }))}
              />
            </Flex>
          ) : null}
          <Row gutter={[8, 8]} data-kpis>
            {kpis.map((k) => (
              <Col key={k.key} xs={12} md={6}>
                <Card size="small" style={{ height: '100%' }} data-kpi={k.key}>
                  <Statistic title={k.title} value={k.value} valueStyle={{ fontSize: 22 }} />
                  {k.help ? (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {k.help}
                    </Typography.Text>
                  ) : null}
                </Card>
              </Col>
            ))}
          </Row>
          {version && chart ? (
            <div data-page-chart>
              {h3(t('linkAnalytics.chart.title'))}
              <LazyChart label={t('linkAnalytics.chart.label')} data={chart} />
              <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
                {version.views === 0
                  ? t('linkAnalytics.empty')
                  : version.dropOffPage
                    ? t('linkAnalytics.chart.dropOffText', { page: version.dropOffPage.page, share: percent(version.dropOffPage.share) })
                    : t('linkAnalytics.chart.noDropOff')}
                {version.current ? null : ` ${t('linkAnalytics.version.earlier')}`}
              </Typography.Paragraph>
            </div>
          ) : null}
          <div data-readers>
            {h3(
              `${t('linkAnalytics.viewers.title')} (${
                several && version
                  ? t('linkAnalytics.viewers.ofVersion', { version: version.version })
                  : t('linkAnalytics.viewers.allVersions')
              })`,
            )}
            {wide ? (
              <Table<ViewerFigures>
                rowKey="viewerId"
                size="small"
                loading={readers.isFetching && readers.isPlaceholderData}
                dataSource={rows}
                locale={{ emptyText: readersEmpty }}
                pagination={pagination}
                columns={[
                  { title: t('linkAnalytics.viewers.reader'), key: 'reader', render: (_, v) => reader(v) },
                  { title: t('linkAnalytics.viewers.views'), key: 'views', align: 'right', render: (_, v) => v.views },
                  { title: t('linkAnalytics.viewers.completion'), key: 'completion', align: 'right', render: (_, v) => readShare(v) },
                  { title: t('linkAnalytics.viewers.time'), key: 'time', align: 'right', render: (_, v) => time(v.seconds) },
                  { title: t('linkAnalytics.viewers.last'), key: 'last', render: (_, v) => <DateTime value={v.lastViewedAt} relative /> },
                ]}
              />
            ) : (
              <List
                size="small"
                dataSource={rows}
                locale={{ emptyText: readersEmpty }}
                pagination={total > VIEWER_PAGE_SIZE ? { ...pagination, align: 'center' } : false}
                renderItem={(v) => (
                  <List.Item key={v.viewerId} data-reader={v.viewerId}>
                    <Flex vertical gap={2} style={{ width: '100%', minWidth: 0 }}>
                      <Flex justify="space-between" gap={8} wrap>
                        {reader(v)}
                        <Typography.Text type="secondary">
                          <DateTime value={v.lastViewedAt} relative />
                        </Typography.Text>
                      </Flex>
                      <Typography.Text type="secondary">
                        {t('linkAnalytics.viewers.views')} {v.views} · {t('linkAnalytics.viewers.completion')} {readShare(v)} ·{' '}
                        {t('linkAnalytics.viewers.time')} {time(v.seconds)}
                      </Typography.Text>
                    </Flex>
                  </List.Item>
                )}
              />
            )}
          </div>
        </Flex>
      )}
    </Card>
  );
}
