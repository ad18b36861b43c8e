import { SettingOutlined } from '@ant-design/icons';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { App, Button, Drawer, Empty, Flex, List, Result, Segmented } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { useWide } from '../../../shared/ui/useWide.ts';
import { inboxQueries, useMarkAllRead, useMarkRead } from '../api.ts';
import { unreadQuery } from '../unread.ts';
import { NotificationItem } from './NotificationItem.tsx';

/** The member's inbox: their notifications, newest first, all or the unread ones; opening one marks it read. */
export function InboxDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useLazyTexts('notifications');
  const { message } = App.useApp();
  const wide = useWide();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const list = useInfiniteQuery({ ...inboxQueries.list(unreadOnly), enabled: open });
  const unread = useQuery(unreadQuery()).data ?? 0;
  const markRead = useMarkRead();
  const markAll = useMarkAllRead();
  const rows = list.data?.pages.flat() ?? [];

  const readAll = async () => {
    // Those up to the newest shown: one that came meanwhile, not yet seen, stays unread.
    const { updated } = await markAll.mutateAsync(rows[0]?.id);
    void message.success(t('notifications.inbox.markedAllRead', { count: updated }));
  };

  return (
    <Drawer
      title={t('notifications.inbox.title')}
      open={open}
      onClose={onClose}
      width={wide ? 440 : '100%'}
      extra={
        <Link to="/notifications" onClick={onClose}>
          <SettingOutlined /> {t('notifications.inbox.settings')}
        </Link>
      }
    >
      <Flex justify="space-between" align="center" wrap gap={8} style={{ marginBottom: 12 }}>
        <Segmented
          aria-label={t('notifications.inbox.show')}
          value={unreadOnly ? 'unread' : 'all'}
          onChange={(v) => setUnreadOnly(v === 'unread')}
          options={[
            { value: 'all', label: t('notifications.inbox.all') },
            { value: 'unread', label: t('notifications.inbox.unread') },
          ]}
        />
        <Button disabled={unread === 0} loading={markAll.isPending} onClick={() => void readAll()}>
          {t('notifications.inbox.markAllRead')}
        </Button>
      </Flex>
      {list.isError ? (
        <Result status="warning" title={t('notifications.inbox.loadFailed')} subTitle={errorText(list.error)} />
      ) : (
        <List
          loading={list.isLoading}
          dataSource={rows}
          rowKey="id"
          locale={{
            emptyText: list.isLoading ? (
              ' '
            ) : (
              <Empty description={t(unreadOnly ? 'notifications.inbox.emptyUnread' : 'notifications.inbox.empty')} />
            ),
          }}
          renderItem={(n) => (
            <NotificationItem
              notification={n}
              onOpen={() => {
                if (!n.read) markRead.mutate(n.id);
                onClose();
              }}
            />
          )}
          loadMore={
            list.hasNextPage ? (
              <Flex justify="center" style={{ marginTop: 12 }}>
                <Button loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
                  {t('notifications.inbox.more')}
                </Button>
              </Flex>
            ) : null
          }
        />
      )}
    </Drawer>
  );
}
