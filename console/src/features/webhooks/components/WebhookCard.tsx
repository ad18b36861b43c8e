import { DeleteOutlined, SendOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Popconfirm, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { Webhook } from '../api.ts';
import type { Tested } from '../useWebhooks.ts';
import { STATUS_COLOR } from './statusColor.ts';

interface Props {
  hook: Webhook;
  /** The last test delivery's answer, when it was this webhook's. */
  tested: Tested | undefined;
  testing: boolean;
  onTest: () => void;
  onOpen: () => void;
  onRemove: () => void;
}

/** A webhook: its address, status and events, the last test's answer, and test, deliveries and remove. */
export function WebhookCard({ hook: h, tested, testing, onTest, onOpen, onRemove }: Props) {
  const { t } = useTranslation();
  return (
    <Card size="small" style={{ width: '100%' }}>
      <Flex vertical gap={8}>
        <Flex justify="space-between" gap={8} wrap align="center">
          <Typography.Text strong style={{ wordBreak: 'break-all' }} data-webhook-url>
            {h.url}
          </Typography.Text>
          <Tag color={STATUS_COLOR[h.status]}>{t(`webhooks.status.${h.status as 'active'}`, { defaultValue: h.status })}</Tag>
        </Flex>
        <Typography.Text type="secondary">
          {h.domainTypes ? t('webhooks.someEvents', { types: h.domainTypes.join(', ') }) : t('webhooks.allEvents')} ·{' '}
          <DateTime value={h.createdAt} relative />
        </Typography.Text>
        {h.disabledReason ? <Alert type="warning" showIcon message={h.disabledReason} /> : null}
        {tested?.id === h.id && (
          <Alert
            role="status"
            type={tested.ok ? 'success' : 'error'}
            showIcon
            message={
              tested.ok
                ? t('webhooks.testOk', { status: tested.status ?? '' })
                : tested.status !== null
                  ? t('webhooks.testStatus', { status: tested.status })
                  : t('webhooks.testNoAnswer', { error: tested.error ?? '' })
            }
          />
        )}
        <Space wrap size={8}>
          <Button icon={<SendOutlined />} loading={testing} onClick={onTest}>
            {t('webhooks.test')}
          </Button>
          <Button onClick={onOpen}>{t('webhooks.deliveries')}</Button>
          <Popconfirm
            title={t('webhooks.removeConfirm')}
            okText={t('webhooks.remove')}
            okButtonProps={{ danger: true }}
            cancelText={t('common.actions.cancel')}
            onConfirm={onRemove}
          >
            <Button danger icon={<DeleteOutlined />}>
              {t('webhooks.remove')}
            </Button>
          </Popconfirm>
        </Space>
      </Flex>
    </Card>
  );
}
