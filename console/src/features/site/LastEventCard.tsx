import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Skeleton, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { siteQueries } from './api.ts';

/**
 * The installation check: when the project's snippet last sent an event and from which host, or
 * that none has arrived yet, with a button that asks again.
 */
export function LastEventCard({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const last = useQuery(siteQueries.lastEvent(appId));
  const recheck = (
    <Button onClick={() => void last.refetch()} loading={last.isFetching}>
      {t('site.check.recheck')}
    </Button>
  );
  let body;
  if (last.isLoading) body = <Skeleton active paragraph={{ rows: 1 }} />;
  else if (last.data?.receivedAt) {
    const at = dayjs(last.data.receivedAt);
    const ago = at.locale(i18n.language === 'zh-CN' ? 'zh-cn' : 'en').fromNow();
    body = (
      <Alert
        type="success"
        showIcon
        message={
          <span>
            {t('site.check.received', { site: last.data.site ?? t('site.check.unknownSite') })}{' '}
            <time dateTime={at.toISOString()} title={at.format('YYYY-MM-DD HH:mm:ss')} data-testid="last-event-time">
              {ago}
            </time>
          </span>
        }
      />
    );
  } else body = <Alert type="info" showIcon message={t('site.check.none')} />;
  return (
    <Card title={t('site.check.title')} extra={recheck}>
      <Typography.Paragraph type="secondary">{t('site.check.help')}</Typography.Paragraph>
      {body}
    </Card>
  );
}
