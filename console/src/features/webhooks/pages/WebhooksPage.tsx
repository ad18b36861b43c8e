import { ApiOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Drawer, Empty, Grid, List, Modal, Result, Skeleton, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { AddWebhookModal } from '../components/AddWebhookModal.tsx';
import { Deliveries } from '../components/Deliveries.tsx';
import { WebhookCard } from '../components/WebhookCard.tsx';
import { useWebhooks } from '../useWebhooks.ts';

/** The project's webhooks: where its events are sent, a test delivery, and each one's deliveries. */
export function WebhooksPage() {
  const { t } = useTranslation();
  const wide = Boolean(Grid.useBreakpoint().md);
  const w = useWebhooks();
  const { hooks, created, opened } = w;

  if (w.loading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (!w.manages) return <Result status="403" title={t('webhooks.title')} subTitle={t('webhooks.managersOnly')} />;

  return (
    <>
      <PageHeader
        title={t('webhooks.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => w.setAdding(true)}>
            {t('webhooks.add')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('webhooks.intro')}</Typography.Paragraph>
      {/* The project's alerts to a team chat are set up on a page of their own (features/notifications). */}
      <Typography.Paragraph>
        <Link to={`/p/${w.appId}/channels`}>{t('webhooks.chatChannels')}</Link>
      </Typography.Paragraph>
      {hooks.isError ? (
        <Result status="warning" title={t('webhooks.loadFailed')} subTitle={errorText(hooks.error)} />
      ) : (
        <List
          loading={hooks.isLoading}
          dataSource={hooks.data ?? []}
          locale={{
            emptyText: <Empty image={<ApiOutlined style={{ fontSize: 40, color: '#8c8c8c' }} />} description={t('webhooks.empty')} />,
          }}
          renderItem={(h) => (
            <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
              <WebhookCard
                hook={h}
                tested={w.tested}
                testing={w.testing(h)}
                onTest={() => void w.runTest(h)}
                onOpen={() => w.setOpened(h)}
                onRemove={() => w.removeHook(h)}
              />
            </List.Item>
          )}
        />
      )}
      <AddWebhookModal webhooks={w} />
      <Modal
        open={created !== undefined}
        title={t('webhooks.createdTitle')}
        footer={null}
        onCancel={() => w.setCreated(undefined)}
        destroyOnHidden
      >
        <Typography.Paragraph>{t('webhooks.secretHelp')}</Typography.Paragraph>
        <Typography.Paragraph code copyable style={{ wordBreak: 'break-all' }}>
          {created?.secret}
        </Typography.Paragraph>
      </Modal>
      <Drawer
        open={opened !== undefined}
        title={t('webhooks.deliveries')}
        width={wide ? 560 : '100%'}
        onClose={() => w.setOpened(undefined)}
        destroyOnHidden
      >
        {opened ? <Deliveries appId={w.appId} hook={opened} /> : null}
      </Drawer>
    </>
  );
}
