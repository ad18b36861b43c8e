import { Form, Input, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useInvite } from '../api.ts';
import type { IssuedLink } from './InvitationLink.tsx';

interface InviteDialogProps {
  appId: string;
  open: boolean;
  /** Only the Master invites an Admin. */
  master: boolean;
  /** Whether the server mails invitations (server-info's `mail`): the button says what happens. */
  mailed: boolean;
  onClose: () => void;
  onIssued: (issued: IssuedLink) => void;
}

/** Invite a colleague by e-mail, with a role: the link is then shown (and mailed when the server sends mail). */
export function InviteDialog({ appId, open, master, mailed, onClose, onIssued }: InviteDialogProps) {
  const { t } = useTranslation();
  const invite = useInvite(appId);
  const [form] = Form.useForm<{ email: string; role: 'Admin' | 'Sales' }>();
  const submit = async (values: { email: string; role: 'Admin' | 'Sales' }) => {
    try {
      const made = await invite.mutateAsync({ email: values.email.trim(), role: values.role });
      form.resetFields();
      onIssued({ email: made.email, url: made.url });
    } catch (err) {
      form.setFields([{ name: 'email', errors: [errorText(err)] }]);
    }
  };
  return (
    <Modal
      title={t('members.inviteTitle')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t(mailed ? 'members.send' : 'members.create')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={invite.isPending}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" initialValues={{ role: 'Sales' }} onFinish={(v) => void submit(v)} requiredMark={false}>
        <Form.Item
          name="email"
          label={t('members.email')}
          extra={t('members.inviteHelp')}
          rules={[
            { required: true, whitespace: true, message: t('members.emailRequired') },
            { type: 'email', message: t('members.emailInvalid') },
          ]}
        >
          <Input type="email" autoComplete="off" inputMode="email" />
        </Form.Item>
        <Form.Item name="role" label={t('members.role')}>
          <Select
            options={(master ? (['Sales', 'Admin'] as const) : (['Sales'] as const)).map((r) => ({
              value: r,
              label: t(`members.roles.${r}`),
            }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
