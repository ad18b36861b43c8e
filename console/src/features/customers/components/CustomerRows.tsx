import { Badge, Card, Checkbox, Empty, Flex, List, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { newActivity } from '../activity.ts';
import type { CustomerListItem } from '../api.ts';
import type { Selection } from '../bulk/useSelection.ts';
import { type SortKey, defaultOrder } from '../listOptions.ts';
import type { CustomerListModel } from '../useCustomerList.ts';

const ONE_LINE = { display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/**
 * The page of customers: a table on a wide screen, whose name, last change, created and last activity
 * headers sort the list (server-side, in the URL), cards on a narrow one; a row opens the customer, its checkbox picks it.
 */
export function CustomerRows({ list: c, wide, selection: s }: { list: CustomerListModel; wide: boolean; selection?: Selection }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const groupName = (r: CustomerListItem) => r.groupName || (r.groupId ? c.groups.find((g) => g.id === r.groupId)?.name : '') || '';
  const href = (r: CustomerListItem) => `/p/${c.appId}/customers/${r.id}`;
  const nameOf = (r: CustomerListItem) => r.name || t('customers.unnamed');
  const isNew = (r: CustomerListItem) => (r.isNew === 1 ? <Tag color="red">{t('customers.newBadge')}</Tag> : null);
  const activity = (r: CustomerListItem) =>
    newActivity(r) > 0 ? <Badge count={t('customers.newActivity', { count: newActivity(r) })} color="#1565c0" /> : null;
  const empty = <Empty description={t(c.filtered ? 'customers.emptyFiltered' : 'customers.empty')} />;
  const picked = (r: CustomerListItem) => Boolean(s && (s.allMatching || s.ids.includes(r.id)));
  const pick = (r: CustomerListItem) =>
    s && (
      <Checkbox
        checked={picked(r)}
        aria-label={t('customers.bulk.pickRow', { name: nameOf(r) })}
        onClick={(e) => e.stopPropagation()}
        onChange={(e) => s.toggle(r.id, e.target.checked)}
      />
    );
  const { sort = 'updated', order } = c.params;
  /** A sortable column's props: the order shown, and the first click's direction (the sort's default). */
  const sortable = (key: SortKey) => ({
    sorter: true,
    sortOrder: sort === key ? ((order ?? defaultOrder(key)) === 'asc' ? ('ascend' as const) : ('descend' as const)) : null,
    sortDirections: (defaultOrder(key) === 'asc' ? ['ascend', 'descend'] : ['descend', 'ascend']) as ('ascend' | 'descend')[],
  });

  if (wide)
    return (
      <Table<CustomerListItem>
        rowKey="id"
        loading={c.replacing}
        dataSource={c.rows}
        pagination={false}
        locale={{ emptyText: empty }}
        rowSelection={
          s && {
            selectedRowKeys: c.rows.filter(picked).map((r) => r.id),
            onChange: (keys) =>
              s.setPage(
                c.rows.map((r) => r.id),
                keys as string[],
              ),
            // Passed on to the checkbox's input by antd, though its type leaves it out.
            getCheckboxProps: (r) => ({ 'aria-label': t('customers.bulk.pickRow', { name: nameOf(r) }) }) as { name?: string },
          }
        }
        onChange={(_p, _f, sorter) => {
          const one = Array.isArray(sorter) ? sorter[0] : sorter;
          const key = one?.order ? (one.columnKey as SortKey) : 'updated';
          const dir = one?.order === 'ascend' ? 'asc' : 'desc';
          c.update({ sort: key === 'updated' ? undefined : key, order: one?.order && dir !== defaultOrder(key) ? dir : undefined });
        }}
        onRow={(r) => ({ onClick: (e) => !(e.target as HTMLElement).closest('a') && void navigate(href(r)), style: { cursor: 'pointer' } })}
        columns={[
          {
            title: t('customers.columns.name'),
            key: 'name',
            ...sortable('name'),
            render: (_, r) => (
              <Space size={4} wrap>
                <Link to={href(r)}>{nameOf(r)}</Link>
                {isNew(r)}
                {activity(r)}
              </Space>
            ),
          },
          { title: t('customers.columns.company'), key: 'company', render: (_, r) => r.company || t('common.none') },
          { title: t('customers.columns.contact'), key: 'contact', render: (_, r) => r.phone || r.email || t('common.none') },
          { title: t('customers.columns.group'), key: 'group', render: (_, r) => groupName(r) || t('common.none') },
          {
            title: t('customers.columns.lastActivity'),
            key: 'last_activity',
            ...sortable('last_activity'),
            render: (_, r) => (r.lastActivityAt ? <DateTime value={r.lastActivityAt} relative /> : t('common.none')),
          },
          {
            title: t('customers.columns.updated'),
            key: 'updated',
            ...sortable('updated'),
            render: (_, r) => <DateTime value={r.updatedAt} relative />,
          },
          {
            title: t('customers.columns.created'),
            key: 'created',
            ...sortable('created'),
            render: (_, r) => <DateTime value={r.createdAt} relative />,
          },
        ]}
      />
    );
  return (
    <List
      loading={c.replacing}
      dataSource={c.rows}
      locale={{ emptyText: empty }}
      renderItem={(r) => (
        <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
          <Card size="small" style={{ width: '100%' }} onClick={() => void navigate(href(r))}>
            <Flex justify="space-between" align="start" gap={8}>
              {pick(r)}
              <Flex vertical gap={2} style={{ minWidth: 0, flex: 1 }}>
                <Space size={4} wrap>
                  <Link to={href(r)} style={{ fontWeight: 600 }}>
                    {nameOf(r)}
                  </Link>
                  {isNew(r)}
                </Space>
                {/* Cut by CSS: antd's measured ellipsis lays the page out again for each card. */}
                <Typography.Text type="secondary" style={ONE_LINE}>
                  {[r.company, r.phone || r.email].filter(Boolean).join(' · ') || t('common.none')}
                </Typography.Text>
                {activity(r)}
              </Flex>
              <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap', fontSize: 12 }}>
                {/* The time the list is sorted by (the last change when sorted by name). */}
                {sort === 'last_activity' ? (
                  r.lastActivityAt ? (
                    <DateTime value={r.lastActivityAt} relative />
                  ) : (
                    t('common.none')
                  )
                ) : (
                  <DateTime value={sort === 'created' ? r.createdAt : r.updatedAt} relative />
                )}
              </Typography.Text>
            </Flex>
          </Card>
        </List.Item>
      )}
    />
  );
}
