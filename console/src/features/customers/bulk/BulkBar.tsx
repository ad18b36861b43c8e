import {
  DeleteOutlined,
  DownOutlined,
  ExportOutlined,
  FolderAddOutlined,
  MailOutlined,
  NodeIndexOutlined,
  UserSwitchOutlined,
} from '@ant-design/icons';
import { App, Button, Dropdown, Flex, Modal, Select, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import type { CustomerListModel } from '../useCustomerList.ts';
import { type BulkAction, type BulkJob, type BulkRequest, bulkQueries, useStartBulk } from './api.ts';
import type { Selection } from './useSelection.ts';

type Picked = 'assign' | 'group' | 'campaign' | 'enroll';

/** The choices of a picked action: members, groups, campaigns or sequences. */
function useChoices(c: CustomerListModel, asking: Picked | null) {
  const campaigns = useQuery({ ...bulkQueries.campaigns(c.appId), enabled: asking === 'campaign' });
  const sequences = useQuery({ ...bulkQueries.sequences(c.appId), enabled: asking === 'enroll' });
  if (asking === 'assign') return c.members.map((m) => ({ value: String(m.svcUserId), label: m.user?.userName || String(m.svcUserId) }));
  if (asking === 'group') return c.groups.map((g) => ({ value: g.id, label: g.name }));
  if (asking === 'campaign') return (campaigns.data ?? []).map((p) => ({ value: p.postId, label: p.title || p.postId }));
  if (asking === 'enroll') return (sequences.data ?? []).map((q) => ({ value: q.id, label: q.name }));
  return [];
}

/**
 * What can be done with the chosen customers, as one job: assign an owner (Master and Admin), add to
 * a group, a campaign or a sequence, export, delete (after a confirmation). Shown while a selection is made;
 * its buttons wrap on a phone.
 */
export function BulkBar({
  list: c,
  selection: s,
  onStarted,
}: {
  list: CustomerListModel;
  selection: Selection;
  onStarted: (job: BulkJob) => void;
}) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const start = useStartBulk(c.appId);
  const [asking, setAsking] = useState<Picked | null>(null);
  const [choice, setChoice] = useState<string | undefined>();
  const choices = useChoices(c, asking);
  if (!s.any) return null;
  const count = s.allMatching ? t('customers.bulk.allMatching') : t('customers.bulk.selected', { count: s.ids.length });

  const run = (action: BulkAction, extra: Partial<BulkRequest> = {}) =>
    start.mutate({ ...s.target(), action, ...extra } as BulkRequest, {
      onSuccess: (job) => {
        setAsking(null);
        setChoice(undefined);
        s.clear();
        onStarted(job);
      },
      onError: (err) => {
        const detail = errorDetail(err);
        void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
      },
    });

  const pick = (): void => {
    if (asking === null || choice === undefined) return;
    if (asking === 'assign') run('assign', { targetSvcUserId: Number(choice) });
    else if (asking === 'group') run('group', { groupId: choice });
    else if (asking === 'campaign') run('campaign', { campaignId: choice });
    else run('enroll', { sequenceId: choice });
  };

  const confirmDelete = () =>
    modal.confirm({
      title: t('customers.bulk.deleteTitle'),
      content: t('customers.bulk.deleteBody', { what: count }),
      okText: t('customers.bulk.actions.delete'),
      okButtonProps: { danger: true },
      onOk: () => run('delete'),
    });

  return (
    <Flex
      wrap
      gap={8}
      align="center"
      role="toolbar"
      aria-label={t('customers.bulk.toolbar')}
      style={{ marginBottom: 12, padding: 8, background: '#e6f4ff', borderRadius: 8 }}
    >
      <Typography.Text strong style={{ marginRight: 4 }}>
        {count}
      </Typography.Text>
      {c.seesAll && (
        <Button size="small" icon={<UserSwitchOutlined />} onClick={() => setAsking('assign')}>
          {t('customers.bulk.actions.assign')}
        </Button>
      )}
      <Button size="small" icon={<FolderAddOutlined />} onClick={() => setAsking('group')}>
        {t('customers.bulk.actions.group')}
      </Button>
      <Button size="small" icon={<MailOutlined />} onClick={() => setAsking('campaign')}>
        {t('customers.bulk.actions.campaign')}
      </Button>
      <Button size="small" icon={<NodeIndexOutlined />} onClick={() => setAsking('enroll')}>
        {t('customers.bulk.actions.enroll')}
      </Button>
      <Dropdown
        menu={{
          items: [
            { key: 'csv', label: t('customers.export.as.csv') },
            { key: 'xlsx', label: t('customers.export.as.xlsx') },
          ],
          onClick: ({ key }) => run('export', { format: key as 'csv' | 'xlsx' }),
        }}
      >
        <Button size="small" icon={<ExportOutlined />}>
          {t('customers.bulk.actions.export')} <DownOutlined />
        </Button>
      </Dropdown>
      <Button size="small" danger icon={<DeleteOutlined />} onClick={() => void confirmDelete()}>
        {t('customers.bulk.actions.delete')}
      </Button>
      <Button size="small" type="link" onClick={s.clear}>
        {t('customers.bulk.clear')}
      </Button>
      <Modal
        open={asking !== null}
        title={asking ? t(`customers.bulk.pick.${asking}.title`, { what: count }) : ''}
        okText={t('customers.bulk.pick.ok')}
        okButtonProps={{ disabled: choice === undefined, loading: start.isPending }}
        onOk={pick}
        onCancel={() => {
          setAsking(null);
          setChoice(undefined);
        }}
        destroyOnHidden
      >
        {asking && (
          <>
            <Select
              aria-label={t(`customers.bulk.pick.${asking}.label`)}
              placeholder={t(`customers.bulk.pick.${asking}.label`)}
              style={{ width: '100%' }}
              showSearch
              optionFilterProp="label"
              value={choice}
              onChange={setChoice}
              options={choices}
            />
            <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
              {t(`customers.bulk.pick.${asking}.hint`)}
            </Typography.Paragraph>
          </>
        )}
      </Modal>
    </Flex>
  );
}
