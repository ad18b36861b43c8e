import { Flex, type InputRef } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredSelect } from '../../../shared/ui/DeferredSelect.tsx';
import { SearchInput } from '../../../shared/ui/SearchInput.ts';
import { useKeyShortcut } from '../../../shared/ui/useKeyShortcut.ts';
import type { CustomerListModel } from '../useCustomerList.ts';
import { ACTIVITY_KINDS, PERIODS, SORT_KEYS, defaultOrder } from '../listOptions.ts';
import { NO_GROUP } from '../useListParams.ts';

/**
 * The list's search, group filter, (for Master and Admin) owner filter, activity filter (a kind and
 * a period) and, on a phone, its order (a wide screen sorts by the table's headers); first in the
 * page's keyboard order. "/" anywhere on the page outside a field puts the cursor in the search box.
 * The selects' code loads when one is first opened (DeferredSelect).
 */
export function CustomerFilters({ list: c, wide }: { list: CustomerListModel; wide: boolean }) {
  const { t } = useTranslation();
  const { params, update } = c;
  const search = useRef<InputRef>(null);
  useKeyShortcut('/', () => search.current?.focus({ cursor: 'all' }));
  return (
    <Flex wrap gap={8} style={{ flex: wide ? '0 1 auto' : '1 1 100%' }}>
      <SearchInput
        key={params.keyword}
        ref={search}
        aria-label={t('customers.searchLabel')}
        aria-keyshortcuts="/"
        placeholder={t('customers.search')}
        defaultValue={params.keyword}
        allowClear
        enterButton
        onSearch={(q) => update({ q: q.trim() })}
        style={{ width: wide ? 320 : '100%' }}
      />
      <DeferredSelect
        aria-label={t('customers.group')}
        style={{ width: wide ? 180 : '100%' }}
        value={params.group === undefined ? '' : params.group === '' ? NO_GROUP : params.group}
        onChange={(v) => update({ group: v || undefined })}
        options={[
          { value: '', label: t('customers.anyGroup') },
          { value: NO_GROUP, label: t('customers.noGroup') },
          ...c.groups.map((g) => ({ value: g.id, label: g.name })),
        ]}
      />
      {c.seesAll && (
        <DeferredSelect
          aria-label={t('customers.owner')}
          style={{ width: wide ? 180 : '100%' }}
          value={params.owner}
          onChange={(v) => update({ owner: v === 'all' ? undefined : v })}
          options={[
            { value: 'all', label: t('customers.allOwners') },
            ...c.members.map((m) => ({ value: String(m.svcUserId), label: m.user?.userName || String(m.svcUserId) })),
          ]}
        />
      )}
      <DeferredSelect
        aria-label={t('customers.activity.label')}
        style={{ width: wide ? 180 : 'calc(50% - 4px)' }}
        value={params.activity ?? ''}
        onChange={(v) => update({ activity: v || undefined })}
        options={[
          { value: '', label: t('customers.activity.all') },
          ...ACTIVITY_KINDS.map((k) => ({ value: k, label: t(`customers.activity.${k}`) })),
        ]}
      />
      <DeferredSelect
        aria-label={t('customers.period.label')}
        style={{ width: wide ? 150 : 'calc(50% - 4px)' }}
        value={params.period ?? ''}
        onChange={(v) => update({ period: v || undefined })}
        options={[
          { value: '', label: t('customers.period.all') },
          ...PERIODS.map((k) => ({ value: k, label: t(`customers.period.${k}`) })),
        ]}
      />
      {!wide && (
        <DeferredSelect
          aria-label={t('customers.sort.label')}
          style={{ width: '100%' }}
          value={`${params.sort ?? 'updated'}_${params.order ?? defaultOrder(params.sort ?? 'updated')}`}
          onChange={(v) => {
            const [sort, order] = [v.replace(/_(asc|desc)$/, ''), v.endsWith('_asc') ? 'asc' : 'desc'];
            update({ sort: sort === 'updated' ? undefined : sort, order: order === defaultOrder(sort as never) ? undefined : order });
          }}
          options={SORT_KEYS.flatMap((k) =>
            (k === 'name' ? (['asc', 'desc'] as const) : (['desc', 'asc'] as const)).map((o) => ({
              value: `${k}_${o}`,
              label: t(`customers.sort.${k}_${o}`),
            })),
          )}
        />
      )}
    </Flex>
  );
}
