import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Input, Modal, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** An invitation just made or resent: its link, shown this once, to copy (and whether it was mailed). */
export interface IssuedLink {
  email: string;
  url: string;
}

/** The link of an invitation just made or resent, with a Copy button: the server keeps no copy of it. */
export function InvitationLinkDialog({ issued, mailed, onClose }: { issued: IssuedLink | null; mailed: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const copy = () =>
    void navigator.clipboard
      .writeText(issued?.url ?? '')
      .then(() => message.success(t('members.copied')))
      .catch(() => undefined);
  return (
    <Modal
      title={t('members.linkTitle')}
      open={issued !== null}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('members.done')}
        </Button>
      }
      destroyOnHidden
    >
      {issued ? (
        <>
          <Typography.Paragraph>{t(mailed ? 'members.linkMailed' : 'members.linkCopyOnly', { email: issued.email })}</Typography.Paragraph>
          <Space.Compact style={{ width: '100%' }}>
            <Input readOnly aria-label={t('members.link')} value={issued.url} style={{ fontFamily: 'monospace' }} data-invitation-url />
            <Button icon={<CopyOutlined />} onClick={copy}>
              {t('members.copy')}
            </Button>
          </Space.Compact>
        </>
      ) : null}
    </Modal>
  );
}
