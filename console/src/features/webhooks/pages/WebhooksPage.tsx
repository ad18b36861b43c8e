import { ApiOutlined, DeleteOutlined, PlusOutlined, RedoOutlined, SendOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Drawer,
  Empty,
  Flex,
  Form,
  Grid,
  Input,
  List,
  Modal,
  Popconfirm,
  Result,
  Skeleton,
  Space,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { memberQueries } from '../../members/index.ts';
import {
  DOMAIN_TYPES,
  type Webhook,
  useCreateWebhook,
  useRemoveWebhook,
  useReplayWebhook,
  useTestWebhook,
  webhookQueries,
} from '../api.ts';

// Dark enough for the tag's white text (WCAG AA).
const STATUS_COLOR: Record<string, string> = {
  delivered: '#2e7d32',
  pending: '#1565c0',
  dead: '#c62828',
  active: '#2e7d32',
  disabled: 'default',
};

/** A webhook's delivery log, newest first, and replaying what failed. */
function Deliveries({ appId, hook }: { appId: string; hook: Webhook }) {
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

/** The project's webhooks: where its events are sent, a test delivery, and each one's deliveries. */
export function WebhooksPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const manages = myRole === 'Master' || myRole === 'Admin';
  const hooks = useQuery({ ...webhookQueries.list(appId), enabled: manages });
  const create = useCreateWebhook(appId);
  const remove = useRemoveWebhook(appId);
  const test = useTestWebhook(appId);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<Webhook>();
  const [opened, setOpened] = useState<Webhook>();
  const [tested, setTested] = useState<{ id: string; ok: boolean; status: number | null; error: string | null }>();
  const [form] = Form.useForm<{ url: string; types: string[] }>();

  if (members.isLoading || me.isLoading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (!manages) return <Result status="403" title={t('webhooks.title')} subTitle={t('webhooks.managersOnly')} />;

  const submit = async (v: { url: string; types: string[] }) => {
    try {
      const hook = await create.mutateAsync({
        url: v.url.trim(),
        ...(v.types?.length && v.types.length < DOMAIN_TYPES.length ? { domain_types: v.types.join(',') } : {}),
      });
      setAdding(false);
      form.resetFields();
      setCreated(hook);
    } catch (err) {
      const code = (err as { code?: string }).code;
      form.setFields([
        {
          name: code === 'domain_types_invalid' ? 'types' : 'url',
          errors: [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x)),
        },
      ]);
    }
  };
  const runTest = async (hook: Webhook) => {
    const r = await test.mutateAsync(hook.id);
    setTested({ id: hook.id, ...r });
    if (r.ok) void message.success(t('webhooks.testOk', { status: r.status ?? '' }));
  };

  return (
    <>
      <PageHeader
        title={t('webhooks.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
            {t('webhooks.add')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('webhooks.intro')}</Typography.Paragraph>
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
                    <Button icon={<SendOutlined />} loading={test.isPending && test.variables === h.id} onClick={() => void runTest(h)}>
                      {t('webhooks.test')}
                    </Button>
                    <Button onClick={() => setOpened(h)}>{t('webhooks.deliveries')}</Button>
                    <Popconfirm
                      title={t('webhooks.removeConfirm')}
                      okText={t('webhooks.remove')}
                      okButtonProps={{ danger: true }}
                      cancelText={t('common.actions.cancel')}
                      onConfirm={() => void remove.mutateAsync(h.id).then(() => message.success(t('webhooks.removed')))}
                    >
                      <Button danger icon={<DeleteOutlined />}>
                        {t('webhooks.remove')}
                      </Button>
                    </Popconfirm>
                  </Space>
                </Flex>
              </Card>
            </List.Item>
          )}
        />
      )}
      <Modal
        title={t('webhooks.addTitle')}
        open={adding}
        onCancel={() => setAdding(false)}
        onOk={() => form.submit()}
        okText={t('common.actions.save')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={create.isPending}
        destroyOnHidden
      >
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          initialValues={{ types: [...DOMAIN_TYPES] }}
          onFinish={(v) => void submit(v)}
        >
          <Form.Item
            name="url"
            label={t('webhooks.url')}
            extra={t('webhooks.urlHelp')}
            rules={[{ required: true, whitespace: true, message: t('webhooks.urlRequired') }]}
          >
            <Input inputMode="url" placeholder={t('webhooks.urlPlaceholder')} />
          </Form.Item>
          <Form.Item
            name="types"
            label={t('webhooks.types')}
            rules={[
              { validator: (_, v?: string[]) => (v?.length ? Promise.resolve() : Promise.reject(new Error(t('webhooks.typesRequired')))) },
            ]}
          >
            <Checkbox.Group options={DOMAIN_TYPES.map((d) => ({ value: d, label: t(`webhooks.domainTypes.${d}`) }))} />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={created !== undefined}
        title={t('webhooks.createdTitle')}
        footer={null}
        onCancel={() => setCreated(undefined)}
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
        onClose={() => setOpened(undefined)}
        destroyOnHidden
      >
        {opened ? <Deliveries appId={appId} hook={opened} /> : null}
      </Drawer>
    </>
  );
}
