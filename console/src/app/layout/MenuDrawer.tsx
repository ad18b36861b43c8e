import { LogoutOutlined } from '@ant-design/icons';
import { Button, Drawer, Flex } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import { type NavItem, NavMenu } from './NavMenu.tsx';

/** At phone width, the drawer of what the header has no room for: project switch, menu, language, account, sign-out. */
export function MenuDrawer(props: {
  open: boolean;
  onClose: () => void;
  projectSwitch: ReactNode;
  items: NavItem[];
  section: string;
  account: ReactNode;
  yourId: ReactNode;
  onSignOut: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Drawer title={t('common.nav.menu')} open={props.open} onClose={props.onClose} width={300}>
      <Flex vertical gap={16}>
        {props.projectSwitch}
        <NavMenu items={props.items} section={props.section} wide={false} onNavigate={props.onClose} />
        <LanguageSwitch />
        {props.account}
        {props.yourId}
        <Button icon={<LogoutOutlined />} onClick={props.onSignOut}>
          {t('common.header.signOut')}
        </Button>
      </Flex>
    </Drawer>
  );
}
