import { MailOutlined, UserAddOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Badge, Button, Flex, Form, InputNumber, List, Modal, Popconfirm, Select, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { authQueries } from '../../auth/index.ts';
import { memberQueries, useAddMember, useRemoveMember } from '../api.ts';
import { InvitationList } from '../components/InvitationList.tsx';
import { type IssuedLink, InvitationLinkDialog } from '../components/InvitationLink.tsx';
import { InviteDialog } from '../components/InviteDialog.tsx';

/**
 * The project's members, their roles, and for Master and Admin: inviting colleagues by e-mail (the
 * link to copy, pending invitations to resend or revoke), adding a user by id, removing members.
 */
export function MembersPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const add = useAddMember(appId);
  const remove = useRemoveMember(appId);
  const [adding, setAdding] = useState(false);
  const [inviting, setInviting] = useState(false);
  const [issued, setIssued] = useState<IssuedLink | null>(null);
  const info = useQuery(authQueries.serverInfo());
  const mailed = info.data?.mail === true;
  const [form] = Form.useForm<{ svc_user_id: number; role: 'Admin' | 'Sales' }>();
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const manages = myRole === 'Master' || myRole === 'Admin';

  const submit = async (values: { svc_user_id: number; role: 'Admin' | 'Sales' }) => {
    try {
      await add.mutateAsync(values);
      setAdding(false);
      form.resetFields();
      void message.success(t('members.added'));
    } catch (err) {
      form.setFields([{ name: 'svc_user_id', errors: [errorText(err)] }]);
    }
  };

  return (
    <>
      <PageHeader
        title={t('members.title')}
        extra={
          manages ? (
            <Flex gap={8} wrap>
              <Button type="primary" icon={<MailOutlined />} onClick={() => setInviting(true)}>
                {t('members.invite')}
              </Button>
              <Button icon={<UserAddOutlined />} onClick={() => setAdding(true)}>
                {t('members.addById')}
              </Button>
            </Flex>
          ) : null
        }
      />
      {me.data ? <Typography.Paragraph type="secondary">{t('members.yourId', { id: me.data.id })}</Typography.Paragraph> : null}
      <List
        loading={members.isLoading}
        dataSource={members.data ?? []}
        renderItem={(m) => {
          const name = m.user?.userName || m.user?.phoneNum || m.user?.email || String(m.svcUserId);
          const mine = m.svcUserId === me.data?.id;
          const removable = manages && !m.isOwner && !mine && (myRole === 'Master' || m.role === 'Sales');
          return (
            <List.Item
              actions={
                removable
                  ? [
                      <Popconfirm
                        key="remove"
                        title={t('members.removeConfirm', { name })}
                        okText={t('members.remove')}
                        cancelText={t('common.actions.cancel')}
                        onConfirm={() => void remove.mutateAsync(String(m.svcUserId)).then(() => message.success(t('members.removed')))}
                      >
                        <Button danger size="small">
                          {t('members.remove')}
                        </Button>
                      </Popconfirm>,
                    ]
                  : []
              }
            >
              <List.Item.Meta
                title={
                  <Flex gap={8} wrap align="center">
                    <span>{name}</span>
                    {mine ? <Typography.Text type="secondary">({t('members.you')})</Typography.Text> : null}
                    <Tag color={m.role === 'Master' ? '#7a4f00' : m.role === 'Admin' ? '#1565c0' : 'default'}>
                      {t(`members.roles.${m.role as 'Sales'}`)}
                    </Tag>
                    {m.accepted ? null : <Tag>{t('members.pending')}</Tag>}
                  </Flex>
                }
                description={m.user?.onlineStatus === 1 ? <Badge status="success" text={t('members.online')} /> : null}
              />
            </List.Item>
          );
        }}
      />
      {manages ? <InvitationList appId={appId} master={myRole === 'Master'} onIssued={setIssued} /> : null}
      <InviteDialog
        appId={appId}
        open={inviting}
        master={myRole === 'Master'}
        mailed={mailed}
        onClose={() => setInviting(false)}
        onIssued={(made) => {
          setInviting(false);
          setIssued(made);
        }}
      />
      <InvitationLinkDialog issued={issued} mailed={mailed} onClose={() => setIssued(null)} />
      <Modal
        title={t('members.addTitle')}
        open={adding}
        onCancel={() => setAdding(false)}
        onOk={() => form.submit()}
        okText={t('common.actions.save')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={add.isPending}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" initialValues={{ role: 'Sales' }} onFinish={(v) => void submit(v)} requiredMark={false}>
          <Form.Item
            name="svc_user_id"
            label={t('members.userId')}
            extra={t('members.userIdHelp')}
            rules={[{ required: true, message: t('members.userIdRequired') }]}
          >
            <InputNumber min={1} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="role" label={t('members.role')}>
            <Select
              options={(myRole === 'Master' ? (['Sales', 'Admin'] as const) : (['Sales'] as const)).map((r) => ({
                value: r,
                label: t(`members.roles.${r}`),
              }))}
            />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
