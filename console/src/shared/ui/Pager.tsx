import { Button, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** Previous / next under a list that answers pages, not totals. */
export function Pager({ page, hasMore, onPage }: { page: number; hasMore: boolean; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  if (page <= 1 && !hasMore) return null;
  return (
    <Flex justify="center" align="center" gap={12} style={{ marginTop: 16 }}>
      <Button disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('common.actions.previous')}
      </Button>
      <Typography.Text>{t('common.page.of', { page })}</Typography.Text>
      <Button disabled={!hasMore} onClick={() => onPage(page + 1)}>
        {t('common.actions.next')}
      </Button>
    </Flex>
  );
}
