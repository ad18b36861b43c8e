import { useQuery } from '@tanstack/react-query';
import { Alert } from 'antd';
import { Trans, useTranslation } from 'react-i18next';
import { authQueries } from '../../features/auth/api.ts';

/**
 * Shown to a project's Master and Admins (and the server's administrators) while the addresses the
 * server hands out (share links, the site snippet, mail clicks) name localhost on a server others
 * reach: customers could not open them (server-info's `publicBaseUrlIsLocal`).
 */
export function PublicAddressBanner({ show }: { show: boolean }) {
  const { t } = useTranslation();
  const info = useQuery({ ...authQueries.serverInfo(), enabled: show });
  if (!show || !info.data?.publicBaseUrlIsLocal) return null;
  return (
    <Alert
      type="warning"
      showIcon
      banner
      role="alert"
      message={t('common.publicAddress.title')}
      description={<Trans i18nKey="common.publicAddress.text" values={{ url: info.data.publicBaseUrl }} components={{ code: <code /> }} />}
      style={{ marginBottom: 16 }}
    />
  );
}
