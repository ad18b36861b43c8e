import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Composer } from '../useComposer.ts';

/** Send's confirmation: how many it goes to (once the draft as it is now is counted), and when. */
export function ConfirmSend({ composer: c }: { composer: Composer }) {
  const { t } = useTranslation();
  const { open, counting, count, sending } = c.confirmation;
  const subject = c.title.trim();
  return (
    <Modal
      open={open}
      title={t('campaigns.compose.confirmTitle')}
      okText={t('campaigns.compose.confirmSend')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={sending}
      okButtonProps={{ disabled: counting }}
      onOk={() => void c.confirmation.send()}
      onCancel={c.confirmation.cancel}
    >
      <Typography.Paragraph>
        {counting
          ? t('campaigns.compose.counting')
          : count === null || count === undefined
            ? t('campaigns.compose.confirmUnknown', { subject })
            : t('campaigns.compose.confirmBody', { count, subject })}
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary">
        {c.when === 'later' && c.sendAt
          ? t('campaigns.compose.confirmLater', { time: c.sendAt.format('YYYY-MM-DD HH:mm') })
          : t('campaigns.compose.confirmNow')}
      </Typography.Paragraph>
    </Modal>
  );
}
