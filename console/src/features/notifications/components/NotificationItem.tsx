import { Badge, List, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { Notification } from '../api.ts';
import { SIGNALS, type Signal } from '../model.ts';

/** One notification: what happened in words (the server's, in the member's language), linking to the customer; bold while unread. */
export function NotificationItem({ notification: n, onOpen }: { notification: Notification; onOpen: () => void }) {
  const { t } = useLazyTexts('notifications');
  const signal = (SIGNALS as readonly string[]).includes(n.signal) ? (n.signal as Signal) : undefined;
  return (
    <List.Item data-notification={n.id} data-read={n.read ? 'true' : 'false'} style={{ alignItems: 'flex-start' }}>
      <List.Item.Meta
        avatar={<Badge status={n.read ? 'default' : 'processing'} />}
        title={
          <Link to={`/p/${n.appId}/customers/${n.customerId}`} onClick={onOpen} style={{ fontWeight: n.read ? 400 : 600 }}>
            {n.title}
          </Link>
        }
        description={
          <>
            <Typography.Paragraph style={{ marginBottom: 4 }}>{n.text}</Typography.Paragraph>
            <Typography.Text type="secondary">
              {signal ? <Tag>{t(`notifications.inbox.signals.${signal}`)}</Tag> : null}
              {!n.read && <span style={{ color: '#1565c0', fontWeight: 600 }}>{t('notifications.inbox.newItem')} · </span>}
              {n.projectName ? `${n.projectName} · ` : ''}
              <DateTime value={n.createdAt} relative />
            </Typography.Text>
          </>
        }
      />
    </List.Item>
  );
}
