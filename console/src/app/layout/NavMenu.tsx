import {
  ApiOutlined,
  AppstoreOutlined,
  CheckSquareOutlined,
  FireOutlined,
  FormOutlined,
  GlobalOutlined,
  KeyOutlined,
  LinkOutlined,
  MailOutlined,
  MergeCellsOutlined,
  NodeIndexOutlined,
  PhoneOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Menu } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type PageKey, prefetchPage } from '../pages.ts';

/** Each entry's icon (in the menu's chunk: a phone's first screen shows none of them). */
const ICONS: Partial<Record<PageKey, ReactNode>> = {
  projects: <AppstoreOutlined />,
  home: <FireOutlined />,
  customers: <UserOutlined />,
  tasks: <CheckSquareOutlined />,
  sequences: <NodeIndexOutlined />,
  duplicates: <MergeCellsOutlined />,
  links: <LinkOutlined />,
  calls: <PhoneOutlined />,
  posts: <MailOutlined />,
  members: <TeamOutlined />,
  fields: <FormOutlined />,
  site: <GlobalOutlined />,
  webhooks: <ApiOutlined />,
  settings: <SettingOutlined />,
  clients: <KeyOutlined />,
};

export interface NavItem {
  key: PageKey;
  label: string;
  /** Where the entry leads; an entry without is not shown. */
  to: string | undefined;
}

/** The main menu: a bar under the header on a wide screen, a column in the drawer on a narrow one. */
export function NavMenu({
  items,
  section,
  wide,
  onNavigate,
}: {
  items: NavItem[];
  section: string;
  wide: boolean;
  onNavigate?: () => void;
}) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('common.nav.mainMenu')} style={{ flex: wide ? 1 : undefined, minWidth: 0 }}>
      <Menu
        mode={wide ? 'horizontal' : 'vertical'}
        selectedKeys={[section]}
        style={{ borderBottom: 'none', borderInlineEnd: 'none' }}
        items={items
          .filter((i) => i.to !== undefined)
          .map((i) => ({
            key: i.key,
            icon: ICONS[i.key],
            label: (
              <Link to={i.to ?? '/'} onMouseEnter={() => prefetchPage(i.key)} onClick={onNavigate}>
                {i.label}
              </Link>
            ),
          }))}
      />
    </nav>
  );
}
