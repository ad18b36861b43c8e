import { Navigate, Outlet, useLocation } from 'react-router';
import { useSignedIn } from '../useSession.ts';
import { AppLayout } from './AppLayout.tsx';

/** Pages behind the session: without one, to sign-in, coming back here afterwards. */
export function SignedIn() {
  const signedIn = useSignedIn();
  const location = useLocation();
  if (!signedIn) return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return (
    <AppLayout>
      <Outlet />
    </AppLayout>
  );
}
