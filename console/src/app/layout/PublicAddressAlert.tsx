import { Alert } from 'antd';
import { Trans, useTranslation } from 'react-i18next';

/** The banner of PublicAddressBanner.tsx, in a chunk loaded when it is shown (with react-i18next's Trans). */
export function PublicAddressAlert({ url }: { url: string }) {
  const { t } = useTranslation();
  return (
    <Alert
      type="warning"
      showIcon
      banner
      role="alert"
      message={t('common.publicAddress.title')}
      description={<Trans i18nKey="common.publicAddress.text" values={{ url }} components={{ code: <code /> }} />}
      style={{ marginBottom: 16 }}
    />
  );
}
