import { DownOutlined, LogoutOutlined, MenuOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Flex, theme } from 'antd';
import { type ReactNode, Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useMatch, useNavigate } from 'react-router';
import { meQuery } from '../../shared/api/me.ts';
import { liveFeed, useLiveFeed } from '../../features/live/liveFeed.ts';
import { useLiveStream } from '../../features/live/useLiveStream.tsx';
import { projectQueries } from '../../features/projects/api.ts';
import { adminQueries } from '../../features/admin/api.ts';
import { InboxBell } from '../../features/notifications/index.ts';
import { session } from '../../shared/api/session.ts';
import { DeferredSelect } from '../../shared/ui/DeferredSelect.tsx';
import { Muted } from '../../shared/ui/Muted.tsx';
import { isWideNow, useWide } from '../../shared/ui/useWide.ts';
import type { NavItem } from './NavMenu.tsx';
import { PublicAddressBanner } from './PublicAddressBanner.tsx';

const ONE_LINE = { minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

// What the first screen does not show is fetched when first shown: at phone width the menu, the
// language switch and the project switch are in a drawer, opened by a tap; the live feed is a drawer too.
const loadNavMenu = () => import('./NavMenu.tsx').then((m) => ({ default: m.NavMenu }));
const loadLanguageSwitch = () => import('./LanguageSwitch.tsx').then((m) => ({ default: m.LanguageSwitch }));
const NavMenu = lazy(loadNavMenu);
const LanguageSwitch = lazy(loadLanguageSwitch);
const MenuDrawer = lazy(() => import('./MenuDrawer.tsx').then((m) => ({ default: m.MenuDrawer })));
const LiveFeedDrawer = lazy(() => import('../../features/live/components/LiveFeedDrawer.tsx').then((m) => ({ default: m.LiveFeedDrawer })));
// A wide screen shows the menu bar and the language switch at once: their code is asked for with the shell's.
if (isWideNow()) {
  void loadNavMenu().catch(() => undefined);
  void loadLanguageSwitch().catch(() => undefined);
}

/** The shell of every signed-in page: project switch, menu, live activity, language, account. */
export function AppLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const wide = useWide();
  const appId = useMatch('/p/:appId/*')?.params.appId;
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useQuery(meQuery());
  const projects = useQuery(projectQueries.mine());
  const [menuOpen, setMenuOpen] = useState(false);
  const [feedOpen, setFeedOpen] = useState(false);
  // A drawer stays once opened (it animates its closing); its code is fetched the first time.
  const [menuShown, setMenuShown] = useState(false);
  const [feedShown, setFeedShown] = useState(false);
  const openMenu = () => {
    setMenuShown(true);
    setMenuOpen(true);
  };
  const feed = useLiveFeed();
  const live = useLiveStream(appId);

  // The menu entry of the page shown: the path's segment after the project (a customer's page is under customers).
  // A sequence's and the playbooks' pages are under sequences, the data rooms under links.
  const segment = appId ? (location.pathname.split('/')[3] ?? 'home') : undefined;
  const section = segment
    ? segment === 'playbooks'
      ? 'sequences'
      : segment === 'rooms'
        ? 'links'
        : segment
    : location.pathname.startsWith('/admin/clients')
      ? 'clients'
      : 'projects';
  // The project's secret is shown to its Master and Admins only: they set up site tracking.
  const manager = (projects.data ?? []).some((p) => p.id === appId && p.secret !== null);
  // The server's administrators (ADMIN_USER_IDS) are those who may list its OAuth clients.
  const isAdmin = useQuery(adminQueries.me()).data?.admin === true;
  const items: NavItem[] = [
    { key: 'projects', label: t('common.nav.projects'), to: '/' },
    { key: 'home', label: t('common.nav.home'), to: appId ? `/p/${appId}/home` : undefined },
    { key: 'customers', label: t('common.nav.customers'), to: appId ? `/p/${appId}/customers` : undefined },
    { key: 'tasks', label: t('common.nav.tasks'), to: appId ? `/p/${appId}/tasks` : undefined },
    { key: 'sequences', label: t('common.nav.sequences'), to: appId ? `/p/${appId}/sequences` : undefined },
    {
      key: 'duplicates',
      label: t('common.nav.duplicates'),
      to: appId ? `/p/${appId}/duplicates` : undefined,
    },
    { key: 'links', label: t('common.nav.links'), to: appId ? `/p/${appId}/links` : undefined },
    { key: 'calls', label: t('common.nav.calls'), to: appId ? `/p/${appId}/calls` : undefined },
    { key: 'posts', label: t('common.nav.posts'), to: appId ? `/p/${appId}/posts` : undefined },
    { key: 'members', label: t('common.nav.members'), to: appId ? `/p/${appId}/members` : undefined },
    { key: 'fields', label: t('common.nav.fields'), to: appId ? `/p/${appId}/fields` : undefined },
    { key: 'site', label: t('common.nav.site'), to: appId && manager ? `/p/${appId}/site` : undefined },
    { key: 'webhooks', label: t('common.nav.webhooks'), to: appId ? `/p/${appId}/webhooks` : undefined },
    { key: 'settings', label: t('common.nav.settings'), to: appId ? `/p/${appId}/settings` : undefined },
    { key: 'clients', label: t('common.nav.clients'), to: isAdmin ? '/admin/clients' : undefined },
  ];
  const projectSwitch = (
    <DeferredSelect
      aria-label={t('common.header.project')}
      placeholder={t('common.header.chooseProject')}
      style={{ width: wide ? 200 : '100%' }}
      value={appId}
      loading={projects.isLoading}
      options={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
      onChange={(id) => {
        setMenuOpen(false);
        void navigate(`/p/${id}/home`);
      }}
    />
  );
  const projectName = (projects.data ?? []).find((p) => p.id === appId)?.name;
  const signOut = async () => {
    await session.signOut();
    client.clear();
    void navigate('/sign-in', { replace: true });
  };
  const name = me.data?.name || me.data?.phoneNum || me.data?.email || '';
  const account = <Muted style={{ whiteSpace: 'nowrap' }}>{t('common.header.account', { name })}</Muted>;
  const liveButton = (
    <Badge count={feed.unseen} size="small" offset={[-4, 4]}>
      <Button
        type="text"
        aria-label={t('common.header.live')}
        icon={<ThunderboltOutlined style={{ color: live.open ? '#1565c0' : undefined }} />}
        onClick={() => {
          liveFeed.seen();
          setFeedShown(true);
          setFeedOpen(true);
        }}
      />
    </Badge>
  );

  return (
    // Drawn as antd's Layout draws it (its header 64 px high, the page's grey behind the content), without its code (and its Sider's).
    <div className="shell" style={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', background: token.colorBgLayout }}>
      <header
        style={{
          flex: '0 0 auto',
          height: 64,
          lineHeight: '64px',
          color: token.colorText,
          background: '#fff',
          borderBottom: '1px solid #e5e5e5',
          padding: wide ? '0 24px' : '0 12px',
          display: 'flex',
          alignItems: 'center',
          gap: wide ? 16 : 8,
        }}
      >
        <Link to="/" style={{ fontWeight: 700, fontSize: 18, color: '#1565c0', flex: 'none' }}>
          {t('common.appName')}
        </Link>
        {wide ? (
          projectSwitch
        ) : projectName ? (
          // At phone width the switch is in the drawer: the header names the project (cut short when long) and opens it.
          <Button
            type="text"
            title={projectName}
            aria-label={t('common.header.currentProject', { name: projectName })}
            onClick={openMenu}
            style={{ minWidth: 0, flex: '0 1 auto', paddingInline: 6, fontWeight: 600 }}
          >
            <span style={ONE_LINE}>{projectName}</span>
            <DownOutlined style={{ fontSize: 10 }} />
          </Button>
        ) : null}
        <div style={{ flex: 1 }} />
        <InboxBell />
        {liveButton}
        {wide ? (
          <Flex gap={12} align="center">
            <Suspense fallback={null}>
              <LanguageSwitch />
            </Suspense>
            {account}
            <Button icon={<LogoutOutlined />} onClick={() => void signOut()}>
              {t('common.header.signOut')}
            </Button>
          </Flex>
        ) : (
          <Button type="text" aria-label={t('common.nav.menu')} icon={<MenuOutlined />} onClick={openMenu} />
        )}
      </header>
      {/* At desktop width the menu is a bar of its own under the header: a project has more pages than the header has room for. */}
      {wide && (
        <div style={{ background: '#fff', borderBottom: '1px solid #e5e5e5', padding: '0 24px' }}>
          {/* The bar keeps its height (antd's horizontal menu: 46 px) while the menu's code loads. */}
          <Suspense fallback={<div style={{ height: 46 }} />}>
            <NavMenu items={items} section={section} wide />
          </Suspense>
        </div>
      )}
      {!wide && menuShown && (
        <Suspense fallback={null}>
          <MenuDrawer
            open={menuOpen}
            onClose={() => setMenuOpen(false)}
            projectSwitch={projectSwitch}
            items={items}
            section={section}
            account={account}
            yourId={me.data ? <Muted>{t('members.yourId', { id: me.data.id })}</Muted> : null}
            onSignOut={() => void signOut()}
          />
        </Suspense>
      )}
      {feedShown && (
        <Suspense fallback={null}>
          <LiveFeedDrawer open={feedOpen} onClose={() => setFeedOpen(false)} connected={live.open} />
        </Suspense>
      )}
      <main
        style={{
          flex: 'auto',
          minHeight: 0,
          color: token.colorText,
          padding: wide ? 24 : 12,
          maxWidth: 1200,
          width: '100%',
          margin: '0 auto',
        }}
      >
        <PublicAddressBanner show={manager || isAdmin} />
        {/* The page's one <main> landmark. */}
        {children}
      </main>
    </div>
  );
}
