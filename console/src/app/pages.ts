/**
 * The pages, each in a chunk of its own, imported when first visited (or when its menu entry is
 * hovered: `prefetchPage`). The menu entries of the layout name these keys.
 */
export const pages = {
  signIn: () => import('../features/auth/pages/SignInPage.tsx').then((m) => ({ Component: m.SignInPage })),
  projects: () => import('../features/projects/pages/ProjectsPage.tsx').then((m) => ({ Component: m.ProjectsPage })),
  customers: () => import('../features/customers/pages/CustomersPage.tsx').then((m) => ({ Component: m.CustomersPage })),
  customer: () => import('../features/customer-detail/pages/CustomerPage.tsx').then((m) => ({ Component: m.CustomerPage })),
  duplicates: () => import('../features/duplicates/pages/DuplicatesPage.tsx').then((m) => ({ Component: m.DuplicatesPage })),
  members: () => import('../features/members/pages/MembersPage.tsx').then((m) => ({ Component: m.MembersPage })),
  fields: () => import('../features/customers/pages/FieldsPage.tsx').then((m) => ({ Component: m.FieldsPage })),
  site: () => import('../features/site/pages/SitePage.tsx').then((m) => ({ Component: m.SitePage })),
};

export type PageKey = keyof typeof pages;

export function prefetchPage(key: PageKey): void {
  void pages[key]();
}
