import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Form, Input, List, Modal, Popconfirm, Result, Skeleton, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, fieldErrors } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { adminQueries, useCreateClient, useRevokeClient } from '../api.ts';

interface Values {
  name: string;
  client_id?: string;
  client_secret?: string;
}

const FIELD_OF: Record<string, keyof Values> = {
  client_name_invalid: 'name',
  client_id_invalid: 'client_id',
  client_secret_invalid: 'client_secret',
};

/** The server's OAuth clients (administrators only): the credentials integrations sign in with. */
export function ClientsPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const clients = useQuery(adminQueries.clients());
  const create = useCreateClient();
  const revoke = useRevokeClient();
  const [adding, setAdding] = useState(false);
  const [made, setMade] = useState<{ client_id: string; client_secret: string }>();
  const [form] = Form.useForm<Values>();

  if (clients.isLoading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (clients.isError) return <Result status="403" title={t('admin.clients.title')} subTitle={errorText(clients.error)} />;

  const submit = async (v: Values) => {
    try {
      const c = await create.mutateAsync({
        name: v.name.trim(),
        ...(v.client_id?.trim() ? { client_id: v.client_id.trim() } : {}),
        ...(v.client_secret ? { client_secret: v.client_secret } : {}),
      });
      setAdding(false);
      form.resetFields();
      setMade(c);
    } catch (err) {
      const field = FIELD_OF[(err as { code?: string }).code ?? ''] ?? 'name';
      form.setFields([{ name: field, errors: fieldErrors(err) }]);
    }
  };

  return (
    <>
      <PageHeader
        title={t('admin.clients.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
            {t('admin.clients.add')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('admin.clients.intro')}</Typography.Paragraph>
      <List
        dataSource={clients.data ?? []}
        locale={{ emptyText: <Empty description={t('admin.clients.empty')} /> }}
        renderItem={(c) => (
          <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
            <Card size="small" style={{ width: '100%' }}>
              <Flex justify="space-between" align="center" gap={8} wrap>
                <Flex vertical gap={2} style={{ minWidth: 0 }}>
                  <Typography.Text strong>{c.name}</Typography.Text>
                  <Typography.Text code style={{ wordBreak: 'break-all' }}>
                    {c.client_id}
                  </Typography.Text>
                  <Typography.Text type="secondary">{t('admin.clients.created', { at: c.created_at })}</Typography.Text>
                </Flex>
                <Flex gap={8} align="center" wrap>
                  {c.console ? <Tag>{t('admin.clients.console')}</Tag> : null}
                  {c.revoked ? (
                    <Tag>{t('admin.clients.revoked')}</Tag>
                  ) : c.console ? null : (
                    <Popconfirm
                      title={t('admin.clients.revokeConfirm', { name: c.name })}
                      okText={t('admin.clients.revoke')}
                      okButtonProps={{ danger: true }}
                      cancelText={t('common.actions.cancel')}
                      onConfirm={() => void revoke.mutateAsync(c.client_id).then(() => message.success(t('admin.clients.revokedDone')))}
                    >
                      <Button danger>{t('admin.clients.revoke')}</Button>
                    </Popconfirm>
                  )}
                </Flex>
              </Flex>
            </Card>
          </List.Item>
        )}
      />
      <Modal
        title={t('admin.clients.addTitle')}
        open={adding}
        onCancel={() => setAdding(false)}
        onOk={() => form.submit()}
        okText={t('common.actions.save')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={create.isPending}
        destroyOnHidden
      >
        <Form<Values> form={form} layout="vertical" requiredMark={false} onFinish={(v) => void submit(v)}>
          <Form.Item
            name="name"
            label={t('admin.clients.name')}
            rules={[{ required: true, whitespace: true, message: t('admin.clients.nameRequired') }]}
          >
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item name="client_id" label={t('admin.clients.givenId')} extra={t('admin.clients.givenHelp')}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item name="client_secret" label={t('admin.clients.givenSecret')}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={made !== undefined}
        title={t('admin.clients.madeTitle')}
        footer={null}
        onCancel={() => setMade(undefined)}
        destroyOnHidden
      >
        <Alert type="warning" showIcon message={t('admin.clients.secretOnce')} style={{ marginBottom: 12 }} />
        <Typography.Paragraph>{t('admin.clients.clientId')}</Typography.Paragraph>
        <Typography.Paragraph code copyable>
          {made?.client_id}
        </Typography.Paragraph>
        <Typography.Paragraph>{t('admin.clients.clientSecret')}</Typography.Paragraph>
        <Typography.Paragraph code copyable style={{ wordBreak: 'break-all' }} data-client-secret>
          {made?.client_secret}
        </Typography.Paragraph>
      </Modal>
    </>
  );
}
