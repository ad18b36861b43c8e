/**
 * The pages, each in a chunk of its own, imported when first visited (or when its menu entry is
 * hovered: `prefetchPage`). The menu entries of the layout name these keys.
 */
export const pages = {
  signIn: () => import('../features/auth/pages/SignInPage.tsx').then((m) => ({ Component: m.SignInPage })),
  invite: () => import('../features/members/pages/InvitePage.tsx').then((m) => ({ Component: m.InvitePage })),
  resetPassword: () => import('../features/auth/pages/ResetPasswordPage.tsx').then((m) => ({ Component: m.ResetPasswordPage })),
  projects: () => import('../features/projects/pages/ProjectsPage.tsx').then((m) => ({ Component: m.ProjectsPage })),
  home: () => import('../features/home/pages/HomePage.tsx').then((m) => ({ Component: m.HomePage })),
  customers: () => import('../features/customers/pages/CustomersPage.tsx').then((m) => ({ Component: m.CustomersPage })),
  customer: () => import('../features/customer-detail/pages/CustomerPage.tsx').then((m) => ({ Component: m.CustomerPage })),
  tasks: () => import('../features/tasks/pages/TasksPage.tsx').then((m) => ({ Component: m.TasksPage })),
  duplicates: () => import('../features/duplicates/pages/DuplicatesPage.tsx').then((m) => ({ Component: m.DuplicatesPage })),
  links: () => import('../features/links/pages/LinksPage.tsx').then((m) => ({ Component: m.LinksPage })),
  rooms: () => import('../features/rooms/pages/RoomsPage.tsx').then((m) => ({ Component: m.RoomsPage })),
  room: () => import('../features/rooms/pages/RoomPage.tsx').then((m) => ({ Component: m.RoomPage })),
  settings: () => import('../features/settings/pages/SettingsPage.tsx').then((m) => ({ Component: m.SettingsPage })),
  webhooks: () => import('../features/webhooks/pages/WebhooksPage.tsx').then((m) => ({ Component: m.WebhooksPage })),
  calls: () => import('../features/histories/pages/CallsPage.tsx').then((m) => ({ Component: m.CallsPage })),
  posts: () => import('../features/histories/pages/PostsPage.tsx').then((m) => ({ Component: m.PostsPage })),
  composer: () => import('../features/campaigns/pages/ComposerPage.tsx').then((m) => ({ Component: m.ComposerPage })),
  campaign: () => import('../features/campaigns/pages/CampaignPage.tsx').then((m) => ({ Component: m.CampaignPage })),
  sequences: () => import('../features/sequences/pages/SequencesPage.tsx').then((m) => ({ Component: m.SequencesPage })),
  sequence: () => import('../features/sequences/pages/SequencePage.tsx').then((m) => ({ Component: m.SequencePage })),
  playbooks: () => import('../features/playbooks/pages/PlaybooksPage.tsx').then((m) => ({ Component: m.PlaybooksPage })),
  playbook: () => import('../features/playbooks/pages/PlaybookPage.tsx').then((m) => ({ Component: m.PlaybookPage })),
  clients: () => import('../features/admin/pages/ClientsPage.tsx').then((m) => ({ Component: m.ClientsPage })),
  members: () => import('../features/members/pages/MembersPage.tsx').then((m) => ({ Component: m.MembersPage })),
  fields: () => import('../features/customers/pages/FieldsPage.tsx').then((m) => ({ Component: m.FieldsPage })),
  site: () => import('../features/site/pages/SitePage.tsx').then((m) => ({ Component: m.SitePage })),
  notificationSettings: () =>
    import('../features/notifications/pages/NotificationSettingsPage.tsx').then((m) => ({ Component: m.NotificationSettingsPage })),
  channels: () => import('../features/notifications/pages/ChannelsPage.tsx').then((m) => ({ Component: m.ChannelsPage })),
};

export type PageKey = keyof typeof pages;

export function prefetchPage(key: PageKey): void {
  void pages[key]();
}
