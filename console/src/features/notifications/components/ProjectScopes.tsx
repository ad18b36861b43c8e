import { Flex, Form, Select, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { Settings } from '../api.ts';
import { SCOPES } from '../model.ts';

/** Whose alerts the member gets in each of their projects; the Master and Admins are shown where to set up its chat channels. */
export function ProjectScopes({ projects }: { projects: Settings['projects'] }) {
  const { t } = useLazyTexts('notifications');
  if (projects.length === 0) return <Typography.Text type="secondary">{t('notifications.settings.noProjects')}</Typography.Text>;
  return (
    <Flex vertical role="list" aria-label={t('notifications.settings.projects')}>
      {projects.map((p) => {
        const name = p.name ?? p.appId;
        const manages = p.role === 'Master' || p.role === 'Admin';
        return (
          <Flex
            key={p.appId}
            role="listitem"
            justify="space-between"
            align="center"
            wrap
            gap={8}
            style={{ padding: '10px 0', borderBottom: '1px solid #f0f0f0' }}
          >
            <Flex vertical style={{ flex: '1 1 200px', minWidth: 0 }}>
              <Typography.Text strong ellipsis>
                {name}
              </Typography.Text>
              {manages && <Link to={`/p/${p.appId}/channels`}>{t('notifications.settings.chatLink')}</Link>}
            </Flex>
            <Form.Item name={['scopes', p.appId]} noStyle>
              <Select
                aria-label={`${t('notifications.settings.scope')}: ${name}`}
                style={{ width: 240, maxWidth: '100%' }}
                options={SCOPES.map((s) => ({ value: s, label: t(`notifications.settings.scopes.${s}`) }))}
              />
            </Form.Item>
          </Flex>
        );
      })}
    </Flex>
  );
}
