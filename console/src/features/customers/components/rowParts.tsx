import { Badge, Checkbox, Empty, Tag } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { newActivity } from '../activity.ts';
import type { CustomerListItem } from '../api.ts';
import type { Selection } from '../bulk/useSelection.ts';
import type { CustomerListModel } from '../useCustomerList.ts';

/** What the table and the cards both show of a customer: the name, the marks, the link, the checkbox. */
export function useRowParts(c: CustomerListModel, s: Selection | undefined) {
  const { t } = useTranslation();
  const nameOf = (r: CustomerListItem) => r.name || t('customers.unnamed');
  const picked = (r: CustomerListItem) => Boolean(s && (s.allMatching || s.ids.includes(r.id)));
  return {
    nameOf,
    picked,
    groupName: (r: CustomerListItem) => r.groupName || (r.groupId ? c.groups.find((g) => g.id === r.groupId)?.name : '') || '',
    href: (r: CustomerListItem) => `/p/${c.appId}/customers/${r.id}`,
    isNew: (r: CustomerListItem): ReactNode => (r.isNew === 1 ? <Tag color="red">{t('customers.newBadge')}</Tag> : null),
    activity: (r: CustomerListItem): ReactNode =>
      newActivity(r) > 0 ? <Badge count={t('customers.newActivity', { count: newActivity(r) })} color="#1565c0" /> : null,
    empty: <Empty description={t(c.filtered ? 'customers.emptyFiltered' : 'customers.empty')} />,
    pick: (r: CustomerListItem): ReactNode =>
      s && (
        <Checkbox
          checked={picked(r)}
          aria-label={t('customers.bulk.pickRow', { name: nameOf(r) })}
          onClick={(e) => e.stopPropagation()}
          onChange={(e) => s.toggle(r.id, e.target.checked)}
        />
      ),
  };
}

export interface RowsProps {
  list: CustomerListModel;
  selection?: Selection;
}
