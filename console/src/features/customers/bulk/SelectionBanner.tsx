import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { DeferredAlert } from '../../../shared/ui/DeferredAlert.tsx';
import type { Selection } from './useSelection.ts';

/**
 * Gmail's offer: once every row of the page is picked and the list goes on, "select all customers
 * matching this list"; once taken, a way back.
 */
export function SelectionBanner({
  selection: s,
  pageIds,
  more,
  total,
}: {
  selection: Selection;
  pageIds: string[];
  more: boolean;
  /** The list's total when exact and within a job's reach (10,000), to name the count; undefined otherwise. */
  total?: number | undefined;
}) {
  const { t, i18n } = useTranslation();
  const wholePage = pageIds.length > 0 && pageIds.every((id) => s.ids.includes(id));
  const counted = total === undefined ? undefined : { count: total, formatted: new Intl.NumberFormat(i18n.language).format(total) };
  if (s.allMatching)
    return (
      <DeferredAlert
        type="info"
        style={{ marginBottom: 12 }}
        message={counted ? t('customers.bulk.allMatchingSelectedN', counted) : t('customers.bulk.allMatchingSelected')}
      />
    );
  if (!wholePage || !more) return null;
  return (
    <DeferredAlert
      type="info"
      style={{ marginBottom: 12 }}
      message={t('customers.bulk.pageSelected', { count: pageIds.length })}
      action={
        <Button size="small" type="link" onClick={s.selectAllMatching}>
          {counted ? t('customers.bulk.selectAllMatchingN', counted) : t('customers.bulk.selectAllMatching')}
        </Button>
      }
    />
  );
}
