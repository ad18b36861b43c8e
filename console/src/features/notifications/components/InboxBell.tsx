import { BellOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { unreadQuery } from '../unread.ts';

// The inbox's list, its texts and its actions load when it is first opened (or the bell pointed at).
const loadDrawer = () => import('./InboxDrawer.tsx').then((m) => ({ default: m.InboxDrawer }));
const InboxDrawer = lazy(loadDrawer);

/** The header's bell: how many of the member's notifications are unread (every project's); a tap opens the inbox. */
export function InboxBell() {
  const { t } = useTranslation();
  const unread = useQuery(unreadQuery()).data ?? 0;
  const [open, setOpen] = useState(false);
  // The drawer stays once opened (it animates its closing).
  const [shown, setShown] = useState(false);
  return (
    <>
      <Badge count={unread} overflowCount={99} size="small" offset={[-4, 4]}>
        <Button
          type="text"
          aria-label={unread > 0 ? t('common.header.inboxUnread', { count: unread }) : t('common.header.inbox')}
          data-unread={unread}
          icon={<BellOutlined />}
          onMouseEnter={() => void loadDrawer().catch(() => undefined)}
          onClick={() => {
            setShown(true);
            setOpen(true);
          }}
        />
      </Badge>
      {shown && (
        <Suspense fallback={null}>
          <InboxDrawer open={open} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
