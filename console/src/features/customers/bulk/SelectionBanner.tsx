import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Selection } from './useSelection.ts';

/**
 * Gmail's offer: once every row of the page is picked and the list goes on, "select all customers
 * matching this list"; once taken, a way back.
 */
export function SelectionBanner({ selection: s, pageIds, more }: { selection: Selection; pageIds: string[]; more: boolean }) {
  const { t } = useTranslation();
  const wholePage = pageIds.length > 0 && pageIds.every((id) => s.ids.includes(id));
  if (s.allMatching) return <Alert type="info" style={{ marginBottom: 12 }} message={t('customers.bulk.allMatchingSelected')} />;
  if (!wholePage || !more) return null;
  return (
    <Alert
      type="info"
      style={{ marginBottom: 12 }}
      message={t('customers.bulk.pageSelected', { count: pageIds.length })}
      action={
        <Button size="small" type="link" onClick={s.selectAllMatching}>
          {t('customers.bulk.selectAllMatching')}
        </Button>
      }
    />
  );
}
