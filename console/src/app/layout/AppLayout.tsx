import {
  ApiOutlined,
  AppstoreOutlined,
  BellOutlined,
  DownOutlined,
  FormOutlined,
  GlobalOutlined,
  KeyOutlined,
  LinkOutlined,
  LogoutOutlined,
  MailOutlined,
  MenuOutlined,
  MergeCellsOutlined,
  PhoneOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Drawer, Flex, Grid, Layout, Menu, Radio, Select, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useMatch, useNavigate } from 'react-router';
import { meQuery } from '../../shared/api/me.ts';
import { LiveFeedDrawer } from '../../features/live/components/LiveFeedDrawer.tsx';
import { liveFeed, useLiveFeed } from '../../features/live/liveFeed.ts';
import { useLiveStream } from '../../features/live/useLiveStream.tsx';
import { projectQueries } from '../../features/projects/api.ts';
import { adminQueries } from '../../features/admin/api.ts';
import { session } from '../../shared/api/session.ts';
import { LANGUAGES } from '../../shared/i18n/language.ts';
import { type PageKey, prefetchPage } from '../pages.ts';
import { useLanguage } from '../useLanguage.ts';
import { PublicAddressBanner } from './PublicAddressBanner.tsx';

const ONE_LINE = { minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/** The language switch: each language named in itself. */
export function LanguageSwitch() {
  const { t } = useTranslation();
  const [language, setLanguage] = useLanguage();
  return (
    <Radio.Group
      aria-label={t('common.header.language')}
      optionType="button"
      size="small"
      value={language}
      onChange={(e) => setLanguage(e.target.value as typeof language)}
      options={LANGUAGES.map((l) => ({ value: l, label: t(`common.languages.${l}`) }))}
    />
  );
}

/** The shell of every signed-in page: project switch, menu, live activity, language, account. */
export function AppLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const wide = Boolean(Grid.useBreakpoint().md);
  const appId = useMatch('/p/:appId/*')?.params.appId;
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useQuery(meQuery());
  const projects = useQuery(projectQueries.mine());
  const [menuOpen, setMenuOpen] = useState(false);
  const [feedOpen, setFeedOpen] = useState(false);
  const feed = useLiveFeed();
  const live = useLiveStream(appId);

  // The menu entry of the page shown: the path's segment after the project (a customer's page is under customers).
  const section = appId
    ? (location.pathname.split('/')[3] ?? 'customers')
    : location.pathname.startsWith('/admin/clients')
      ? 'clients'
      : 'projects';
  // The project's secret is shown to its Master and Admins only: they set up site tracking.
  const manager = (projects.data ?? []).some((p) => p.id === appId && p.secret !== null);
  // The server's administrators (ADMIN_USER_IDS) are those who may list its OAuth clients.
  const isAdmin = useQuery(adminQueries.me()).data?.admin === true;
  const items: { key: PageKey; label: string; icon: ReactNode; to: string | undefined }[] = [
    { key: 'projects', label: t('common.nav.projects'), icon: <AppstoreOutlined />, to: '/' },
    { key: 'customers', label: t('common.nav.customers'), icon: <UserOutlined />, to: appId ? `/p/${appId}/customers` : undefined },
    {
      key: 'duplicates',
      label: t('common.nav.duplicates'),
      icon: <MergeCellsOutlined />,
      to: appId ? `/p/${appId}/duplicates` : undefined,
    },
    { key: 'links', label: t('common.nav.links'), icon: <LinkOutlined />, to: appId ? `/p/${appId}/links` : undefined },
    { key: 'calls', label: t('common.nav.calls'), icon: <PhoneOutlined />, to: appId ? `/p/${appId}/calls` : undefined },
    { key: 'posts', label: t('common.nav.posts'), icon: <MailOutlined />, to: appId ? `/p/${appId}/posts` : undefined },
    { key: 'members', label: t('common.nav.members'), icon: <TeamOutlined />, to: appId ? `/p/${appId}/members` : undefined },
    { key: 'fields', label: t('common.nav.fields'), icon: <FormOutlined />, to: appId ? `/p/${appId}/fields` : undefined },
    { key: 'site', label: t('common.nav.site'), icon: <GlobalOutlined />, to: appId && manager ? `/p/${appId}/site` : undefined },
    { key: 'webhooks', label: t('common.nav.webhooks'), icon: <ApiOutlined />, to: appId ? `/p/${appId}/webhooks` : undefined },
    { key: 'settings', label: t('common.nav.settings'), icon: <SettingOutlined />, to: appId ? `/p/${appId}/settings` : undefined },
    { key: 'clients', label: t('common.nav.clients'), icon: <KeyOutlined />, to: isAdmin ? '/admin/clients' : undefined },
  ];
  const menu = (
    <nav aria-label={t('common.nav.mainMenu')} style={{ flex: wide ? 1 : undefined, minWidth: 0 }}>
      <Menu
        mode={wide ? 'horizontal' : 'vertical'}
        selectedKeys={[section]}
        style={{ borderBottom: 'none', borderInlineEnd: 'none' }}
        items={items
          .filter((i) => i.to !== undefined)
          .map((i) => ({
            key: i.key,
            icon: i.icon,
            label: (
              <Link to={i.to ?? '/'} onMouseEnter={() => prefetchPage(i.key)} onClick={() => setMenuOpen(false)}>
                {i.label}
              </Link>
            ),
          }))}
      />
    </nav>
  );
  const projectSwitch = (
    <Select
      aria-label={t('common.header.project')}
      placeholder={t('common.header.chooseProject')}
      style={{ width: wide ? 200 : '100%' }}
      value={appId}
      loading={projects.isLoading}
      options={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
      onChange={(id: string) => {
        setMenuOpen(false);
        void navigate(`/p/${id}/customers`);
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
  const account = (
    <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap' }}>
      {t('common.header.account', { name })}
    </Typography.Text>
  );
  const liveButton = (
    <Badge count={feed.unseen} size="small" offset={[-4, 4]}>
      <Button
        type="text"
        aria-label={t('common.header.live')}
        icon={<BellOutlined style={{ color: live.open ? '#1565c0' : undefined }} />}
        onClick={() => {
          liveFeed.seen();
          setFeedOpen(true);
        }}
      />
    </Badge>
  );

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header
        style={{
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
            onClick={() => setMenuOpen(true)}
            style={{ minWidth: 0, flex: '0 1 auto', paddingInline: 6, fontWeight: 600 }}
          >
            <span style={ONE_LINE}>{projectName}</span>
            <DownOutlined style={{ fontSize: 10 }} />
          </Button>
        ) : null}
        <div style={{ flex: 1 }} />
        {liveButton}
        {wide ? (
          <Flex gap={12} align="center">
            <LanguageSwitch />
            {account}
            <Button icon={<LogoutOutlined />} onClick={() => void signOut()}>
              {t('common.header.signOut')}
            </Button>
          </Flex>
        ) : (
          <Button type="text" aria-label={t('common.nav.menu')} icon={<MenuOutlined />} onClick={() => setMenuOpen(true)} />
        )}
      </Layout.Header>
      {/* At desktop width the menu is a bar of its own under the header: a project has more pages than the header has room for. */}
      {wide && <div style={{ background: '#fff', borderBottom: '1px solid #e5e5e5', padding: '0 24px' }}>{menu}</div>}
      {!wide && (
        <Drawer title={t('common.nav.menu')} open={menuOpen} onClose={() => setMenuOpen(false)} width={300}>
          <Flex vertical gap={16}>
            {projectSwitch}
            {menu}
            <LanguageSwitch />
            {account}
            {me.data ? <Typography.Text type="secondary">{t('members.yourId', { id: me.data.id })}</Typography.Text> : null}
            <Button icon={<LogoutOutlined />} onClick={() => void signOut()}>
              {t('common.header.signOut')}
            </Button>
          </Flex>
        </Drawer>
      )}
      <LiveFeedDrawer open={feedOpen} onClose={() => setFeedOpen(false)} connected={live.open} />
      <Layout.Content style={{ padding: wide ? 24 : 12, maxWidth: 1200, width: '100%', margin: '0 auto' }}>
        <PublicAddressBanner show={manager || isAdmin} />
        {/* Layout.Content is the page's one <main> landmark. */}
        {children}
      </Layout.Content>
    </Layout>
  );
}
