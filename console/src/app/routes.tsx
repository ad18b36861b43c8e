import { Navigate, createBrowserRouter } from 'react-router';
import { pages } from './pages.ts';
import { PageSkeleton } from './PageSkeleton.tsx';
import { RouteError } from './RouteError.tsx';

export const router = createBrowserRouter(
  [
    {
      HydrateFallback: PageSkeleton,
      errorElement: <RouteError />,
      children: [
        { path: 'sign-in', lazy: pages.signIn },
        { path: 'reset-password', lazy: pages.resetPassword },
        // An invitation's link: public (it signs up the invited), and for the signed-in too.
        { path: 'invite/:token', lazy: pages.invite },
        {
          // The shell of the signed-in pages (menu, project switch, live stream) loads with the first of them.
          lazy: () => import('./layout/SignedIn.tsx').then((m) => ({ Component: m.SignedIn })),
          errorElement: <RouteError />,
          children: [
            { index: true, lazy: pages.projects },
            { path: 'admin/clients', lazy: pages.clients },
            // Opening a project lands on its home: who to call now.
            { path: 'p/:appId', element: <Navigate to="home" replace /> },
            { path: 'p/:appId/home', lazy: pages.home },
            { path: 'notifications', lazy: pages.notificationSettings },
            { path: 'p/:appId/customers', lazy: pages.customers },
            { path: 'p/:appId/customers/:customerId', lazy: pages.customer },
            { path: 'p/:appId/tasks', lazy: pages.tasks },
            { path: 'p/:appId/sequences', lazy: pages.sequences },
            { path: 'p/:appId/sequences/new', lazy: pages.sequence },
            { path: 'p/:appId/sequences/:sequenceId', lazy: pages.sequence },
            { path: 'p/:appId/playbooks', lazy: pages.playbooks },
            { path: 'p/:appId/playbooks/new', lazy: pages.playbook },
            { path: 'p/:appId/playbooks/:playbookId', lazy: pages.playbook },
            { path: 'p/:appId/duplicates', lazy: pages.duplicates },
            { path: 'p/:appId/members', lazy: pages.members },
            { path: 'p/:appId/fields', lazy: pages.fields },
            { path: 'p/:appId/site', lazy: pages.site },
            { path: 'p/:appId/links', lazy: pages.links },
            { path: 'p/:appId/rooms', lazy: pages.rooms },
            { path: 'p/:appId/rooms/:roomId', lazy: pages.room },
            { path: 'p/:appId/settings', lazy: pages.settings },
            { path: 'p/:appId/calls', lazy: pages.calls },
            { path: 'p/:appId/posts', lazy: pages.posts },
            { path: 'p/:appId/posts/new', lazy: pages.composer },
            { path: 'p/:appId/posts/:postId', lazy: pages.campaign },
            { path: 'p/:appId/webhooks', lazy: pages.webhooks },
            { path: 'p/:appId/channels', lazy: pages.channels },
            // Its Result (and the illustration of a 404) loads only with it.
            { path: '*', lazy: () => import('./NotFound.tsx').then((m) => ({ Component: m.NotFound })) },
          ],
        },
      ],
    },
  ],
  { basename: '/console' },
);
