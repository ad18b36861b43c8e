import { Space, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { TopReason } from '../../../shared/score/TopReason.tsx';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { CustomerListItem } from '../api.ts';
import { type SortKey, defaultOrder } from '../listOptions.ts';
import { type RowsProps, useRowParts } from './rowParts.tsx';

/**
 * The page of customers on a wide screen: a table whose name, score (its largest reason under it),
 * last change, created and last activity headers sort the list (server-side, in the URL); a row opens the customer, its checkbox picks it.
 */
export function CustomerTable({ list: c, selection: s }: RowsProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { nameOf, picked, groupName, href, isNew, activity, empty } = useRowParts(c, s);
  const { sort = 'updated', order } = c.params;
  /** A sortable column's props: the order shown, and the first click's direction (the sort's default). */
  const sortable = (key: SortKey) => ({
    sorter: true,
    sortOrder: sort === key ? ((order ?? defaultOrder(key)) === 'asc' ? ('ascend' as const) : ('descend' as const)) : null,
    sortDirections: (defaultOrder(key) === 'asc' ? ['ascend', 'descend'] : ['descend', 'ascend']) as ('ascend' | 'descend')[],
  });
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
        {
          title: t('customers.columns.score'),
          key: 'score',
          ...sortable('score'),
          width: 220,
          render: (_, r) => (r.score ? <TopReason score={r.score} reasons={r.scoreReasons} /> : t('common.none')),
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
}
