import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Dropdown, Flex, Tag, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { ACTION_TYPES, type ActionType, MAX_ACTIONS } from '../model.ts';
import type { PlaybookEditor } from '../usePlaybookEditor.ts';
import { ActionFields } from './ActionFields.tsx';

/** What the playbook does, in order: each action with its fields, added and removed. */
export function ActionsCard({ editor: e }: { editor: PlaybookEditor }) {
  const { t } = useLazyTexts('playbooks');
  const { actions } = e.draft;
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('playbooks.actions.title')}</h2>}>
      <Flex vertical gap={12}>
        {actions.map((a, i) => (
          <Flex key={i} vertical gap={6} data-action={i} role="group" aria-label={t('playbooks.actions.number', { n: i + 1 })}>
            <Flex justify="space-between" align="center">
              <Tag color="purple">{t(`playbooks.actionTypes.${a.type}`)}</Tag>
              <Button
                size="small"
                type="text"
                danger
                icon={<DeleteOutlined />}
                disabled={actions.length === 1}
                aria-label={t('playbooks.actions.remove', { n: i + 1 })}
                onClick={() => e.removeAction(i)}
              />
            </Flex>
            <ActionFields appId={e.appId} action={a} bad={e.has('action', i)} onChange={(next) => e.setAction(i, next)} />
            {e.has('action', i) && <Typography.Text type="danger">{t(`playbooks.actionMissing.${a.type}`)}</Typography.Text>}
          </Flex>
        ))}
        <div>
          <Dropdown
            disabled={actions.length >= MAX_ACTIONS}
            menu={{
              items: ACTION_TYPES.map((k) => ({ key: k, label: t(`playbooks.actionTypes.${k}`) })),
              onClick: ({ key }) => e.addAction(key as ActionType),
            }}
          >
            <Button icon={<PlusOutlined />}>{t('playbooks.actions.add')}</Button>
          </Dropdown>
        </div>
      </Flex>
    </Card>
  );
}
