import { useQuery } from '@tanstack/react-query';
import { Suspense, lazy } from 'react';
import { authQueries } from '../../features/auth/api.ts';

const PublicAddressAlert = lazy(() => import('./PublicAddressAlert.tsx').then((m) => ({ default: m.PublicAddressAlert })));

/**
 * Shown to a project's Master and Admins (and the server's administrators) while the addresses the
 * server hands out (share links, the site snippet, mail clicks) name localhost on a server others
 * reach: customers could not open them (server-info's `publicBaseUrlIsLocal`). Its code loads when it is shown.
 */
export function PublicAddressBanner({ show }: { show: boolean }) {
  const info = useQuery({ ...authQueries.serverInfo(), enabled: show });
  if (!show || !info.data?.publicBaseUrlIsLocal) return null;
  return (
    <Suspense fallback={null}>
      <PublicAddressAlert url={info.data.publicBaseUrl} />
    </Suspense>
  );
}
