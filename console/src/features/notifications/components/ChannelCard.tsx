import { DeleteOutlined, EditOutlined, SendOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Popconfirm, Space, Tag, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { Channel } from '../channels.api.ts';
import { CHANNEL_KINDS, type ChannelKind, SIGNALS, type Signal } from '../model.ts';
import type { ChannelTested } from '../useChannels.ts';

/** Dark enough for the tag's white text (WCAG AA), as the webhooks' status. */
const ACTIVE = '#2e7d32';

interface Props {
  channel: Channel;
  tested: ChannelTested | undefined;
  testing: boolean;
  onTest: () => void;
  onEdit: () => void;
  onToggle: () => void;
  onRemove: () => void;
}

/** A chat channel: its platform, name, masked address, the alerts it posts, the last test's answer, and its actions. */
export function ChannelCard({ channel: c, tested, testing, onTest, onEdit, onToggle, onRemove }: Props) {
  const { t } = useLazyTexts('notifications');
  const kind = (CHANNEL_KINDS as readonly string[]).includes(c.kind) ? (c.kind as ChannelKind) : undefined;
  const platform = kind ? t(`notifications.channels.kinds.${kind}`) : c.kind;
  const events = c.events.filter((e): e is Signal => (SIGNALS as readonly string[]).includes(e));
  const result = tested?.id === c.id ? tested : undefined;
  return (
    <Card size="small" style={{ width: '100%' }} data-channel={c.id}>
      <Flex vertical gap={8}>
        <Flex justify="space-between" gap={8} wrap align="center">
          <Typography.Text strong>{c.name || platform}</Typography.Text>
          <Space size={4}>
            <Tag>{platform}</Tag>
            <Tag color={c.status === 'active' ? ACTIVE : 'default'}>
              {c.status === 'active' ? t('notifications.channels.status.active') : t('notifications.channels.status.disabled')}
            </Tag>
          </Space>
        </Flex>
        <Typography.Text type="secondary" style={{ wordBreak: 'break-all' }}>
          {c.url}
        </Typography.Text>
        <Space wrap size={4}>
          {events.map((e) => (
            <Tag key={e} bordered={false}>
              {t(`notifications.inbox.signals.${e}`)}
              {e === 'deck_read' && c.readThreshold !== null ? ` ≥ ${c.readThreshold}%` : ''}
            </Tag>
          ))}
        </Space>
        {c.disabledReason ? <Alert type="warning" showIcon message={c.disabledReason} /> : null}
        {result && (
          <Alert
            role="status"
            type={result.ok ? 'success' : 'error'}
            showIcon
            message={
              result.ok
                ? t('notifications.channels.testOk', { platform })
                : result.status !== null
                  ? t('notifications.channels.testRefused', { platform, error: result.error ?? `HTTP ${result.status}` })
                  : t('notifications.channels.testNoAnswer', { platform, error: result.error ?? '' })
            }
          />
        )}
        <Space wrap size={8}>
          <Button icon={<SendOutlined />} loading={testing} onClick={onTest}>
            {t('notifications.channels.test')}
          </Button>
          <Button icon={<EditOutlined />} onClick={onEdit}>
            {t('notifications.channels.edit')}
          </Button>
          <Button onClick={onToggle}>
            {c.status === 'active' ? t('notifications.channels.turnOff') : t('notifications.channels.turnOn')}
          </Button>
          <Popconfirm
            title={t('notifications.channels.removeConfirm')}
            okText={t('notifications.channels.remove')}
            okButtonProps={{ danger: true }}
            cancelText={t('common.actions.cancel')}
            onConfirm={onRemove}
          >
            <Button danger icon={<DeleteOutlined />}>
              {t('notifications.channels.remove')}
            </Button>
          </Popconfirm>
        </Space>
      </Flex>
    </Card>
  );
}
