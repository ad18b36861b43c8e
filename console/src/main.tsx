// antd 5 renders with React 19 through this patch (its static methods and wave effect).
import '@ant-design/v5-patch-for-react-19';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/AppProviders.tsx';
import { router } from './app/routes.tsx';
import { authQueries } from './features/auth/api.ts';
import { queryClient } from './shared/api/queryClient.ts';
import { session } from './shared/api/session.ts';
import { i18nReady } from './shared/i18n/i18n.ts';
import { setServerTimeZone } from './shared/time/serverTime.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// Before the first page: the language's texts, the server's time zone, and the session the cookie may hold.
await Promise.all([
  i18nReady,
  queryClient
    .fetchQuery(authQueries.serverInfo())
    .then((info) => setServerTimeZone(info.timeZone))
    .catch(() => undefined),
  session.restore(),
]);

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <AppProviders>
        <RouterProvider router={router} />
      </AppProviders>
    </QueryClientProvider>
  </StrictMode>,
);
