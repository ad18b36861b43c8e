import { Flex, Input, type InputRef, Select } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useKeyShortcut } from '../../../shared/ui/useKeyShortcut.ts';
import type { CustomerListModel } from '../useCustomerList.ts';
import { NO_GROUP } from '../useListParams.ts';

/**
 * The list's search, group filter and (for Master and Admin) owner filter, first in the page's
 * keyboard order; "/" anywhere on the page outside a field puts the cursor in the search box.
 */
export function CustomerFilters({ list: c, wide }: { list: CustomerListModel; wide: boolean }) {
  const { t } = useTranslation();
  const { params, update } = c;
  const search = useRef<InputRef>(null);
  useKeyShortcut('/', () => search.current?.focus({ cursor: 'all' }));
  return (
    <Flex wrap gap={8} style={{ flex: wide ? '0 1 auto' : '1 1 100%' }}>
      <Input.Search
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
      <Select
        aria-label={t('customers.group')}
        style={{ width: wide ? 180 : '100%' }}
        value={params.group === undefined ? '' : params.group === '' ? NO_GROUP : params.group}
        onChange={(v: string) => update({ group: v || undefined })}
        options={[
          { value: '', label: t('customers.anyGroup') },
          { value: NO_GROUP, label: t('customers.noGroup') },
          ...c.groups.map((g) => ({ value: g.id, label: g.name })),
        ]}
      />
      {c.seesAll && (
        <Select
          aria-label={t('customers.owner')}
          style={{ width: wide ? 180 : '100%' }}
          value={params.owner}
          onChange={(v: string) => update({ owner: v === 'all' ? undefined : v })}
          options={[
            { value: 'all', label: t('customers.allOwners') },
            ...c.members.map((m) => ({ value: String(m.svcUserId), label: m.user?.userName || String(m.svcUserId) })),
          ]}
        />
      )}
    </Flex>
  );
}
