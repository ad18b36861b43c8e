import { Badge, Drawer, Empty, List, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { useBehaviourTitle } from '../../../shared/behaviour/useBehaviourTitle.ts';
import { useLiveFeed } from '../liveFeed.ts';

/** The tab's live feed, newest first. */
export function LiveFeedDrawer({ open, onClose, connected }: { open: boolean; onClose: () => void; connected: boolean }) {
  const { t } = useTranslation();
  const { entries } = useLiveFeed();
  const title = useBehaviourTitle();
  return (
    <Drawer
      title={
        <span>
          {t('live.title')}{' '}
          <Badge status={connected ? 'processing' : 'default'} text={t(connected ? 'live.connected' : 'live.reconnecting')} />
        </span>
      }
      open={open}
      onClose={onClose}
      width={360}
    >
      {entries.length === 0 ? (
        <Empty description={t('live.empty')} />
      ) : (
        <List
          dataSource={entries}
          renderItem={(e) => {
            const text =
              e.textKey === 'activity'
                ? t('live.activity', { name: e.customerName, what: title({ action: e.action ?? '', content: e.content, when: e.at }) })
                : e.textKey === 'anonymousOpen'
                  ? t('live.anonymousOpen', { link: e.linkName, place: e.place ?? '' })
                  : t(`live.${e.textKey}`, { name: e.customerName });
            return (
              <List.Item>
                <List.Item.Meta
                  title={
                    e.customerId ? (
                      <Link to={`/p/${e.appId}/customers/${e.customerId}`} onClick={onClose}>
                        {text}
                      </Link>
                    ) : (
                      text
                    )
                  }
                  description={
                    <Typography.Text type="secondary">
                      <DateTime value={e.at} relative />
                    </Typography.Text>
                  }
                />
              </List.Item>
            );
          }}
        />
      )}
    </Drawer>
  );
}
