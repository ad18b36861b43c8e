import { MessageOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Empty, List, Modal, Result, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { ChannelCard } from '../components/ChannelCard.tsx';
import { ChannelFormModal } from '../components/ChannelFormModal.tsx';
import { useChannels } from '../useChannels.ts';

function Channels() {
  const { t } = useLazyTexts('notifications');
  const c = useChannels();
  const { channels, created } = c;
  if (c.loading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (!c.manages)
    return <Result status="403" title={t('notifications.channels.title')} subTitle={t('notifications.channels.managersOnly')} />;
  return (
    <>
      <PageHeader
        title={t('notifications.channels.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => c.setEditing('new')}>
            {t('notifications.channels.add')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('notifications.channels.intro')}</Typography.Paragraph>
      {channels.isError ? (
        <Result status="warning" title={t('notifications.channels.loadFailed')} subTitle={errorText(channels.error)} />
      ) : (
        <List
          loading={channels.isLoading}
          dataSource={channels.data ?? []}
          rowKey="id"
          locale={{
            emptyText: (
              <Empty
                image={<MessageOutlined style={{ fontSize: 40, color: '#8c8c8c' }} />}
                description={t('notifications.channels.empty')}
              />
            ),
          }}
          renderItem={(ch) => (
            <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
              <ChannelCard
                channel={ch}
                tested={c.tested}
                testing={c.testing(ch)}
                onTest={() => void c.runTest(ch)}
                onEdit={() => c.setEditing(ch)}
                onToggle={() => c.toggle(ch)}
                onRemove={() => c.removeChannel(ch)}
              />
            </List.Item>
          )}
        />
      )}
      <ChannelFormModal channels={c} />
      <Modal
        open={created !== undefined}
        title={t('notifications.channels.createdTitle')}
        footer={null}
        onCancel={() => c.setCreated(undefined)}
        destroyOnHidden
      >
        <Typography.Paragraph>{t('notifications.channels.createdSecret')}</Typography.Paragraph>
        <Typography.Paragraph code copyable style={{ wordBreak: 'break-all' }}>
          {created?.secret}
        </Typography.Paragraph>
      </Modal>
    </>
  );
}

/** A project's chat channels (Master and Admins): where its alerts are posted, with a test message; its texts load with it. */
export function ChannelsPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
      <Channels />
    </Suspense>
  );
}
