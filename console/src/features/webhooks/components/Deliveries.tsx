import { RedoOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, List, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { type Webhook, useReplayWebhook, webhookQueries } from '../api.ts';
import { STATUS_COLOR } from './statusColor.ts';

/** A webhook's delivery log, newest first, and replaying what failed. */
export function Deliveries({ appId, hook }: { appId: string; hook: Webhook }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const deliveries = useQuery(webhookQueries.deliveries(appId, hook.id));
  const replay = useReplayWebhook(appId);
  const dead = (deliveries.data ?? []).some((d) => d.status === 'dead');
  return (
    <Flex vertical gap={12}>
      <Typography.Text type="secondary">{hook.url}</Typography.Text>
      {(dead || hook.status !== 'active') && (
        <div>
          <Button
            icon={<RedoOutlined />}
            loading={replay.isPending}
            onClick={() =>
              void replay.mutateAsync({ id: hook.id }).then((r) => message.success(t('webhooks.replayed', { count: r.deliveries })))
            }
          >
            {t('webhooks.replay')}
          </Button>
        </div>
      )}
      <List
        loading={deliveries.isLoading}
        dataSource={deliveries.data ?? []}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('webhooks.deliveriesEmpty')} /> }}
        renderItem={(d) => (
          <List.Item>
            <Flex vertical gap={2} style={{ width: '100%' }}>
              <Flex justify="space-between" gap={8} wrap>
                <Space size={4} wrap>
                  <Tag color={STATUS_COLOR[d.status]}>
                    {t(`webhooks.deliveryStatus.${d.status as 'pending'}`, { defaultValue: d.status })}
                  </Tag>
                  <Typography.Text>{t('webhooks.events', { count: d.eventIds.length })}</Typography.Text>
                </Space>
                <Typography.Text type="secondary">
                  <DateTime value={d.createdAt} />
                </Typography.Text>
              </Flex>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('webhooks.attempts', { count: d.attempts })}
                {d.lastStatusCode !== null ? ` · HTTP ${d.lastStatusCode}` : ''}
                {d.lastError ? ` · ${d.lastError}` : ''}
              </Typography.Text>
            </Flex>
          </List.Item>
        )}
      />
    </Flex>
  );
}
