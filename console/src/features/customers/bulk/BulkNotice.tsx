import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredAlert } from '../../../shared/ui/DeferredAlert.tsx';
import { customerQueries } from '../api.ts';
import { bulkQueries, isSettled } from './api.ts';

/**
 * A bulk action of the caller's still under way when the page is opened again (a reload, another
 * page and back): its progress, and a way to follow it in its drawer; the list is read again once it ends.
 */
export function BulkNotice({ appId, me, onShow }: { appId: string; me: number | undefined; onShow: (id: string) => void }) {
  const { t } = useTranslation();
  const recent = useQuery({ ...bulkQueries.recent(appId), enabled: me !== undefined });
  const running = recent.data?.find((j) => j.createdBy === me && !isSettled(j));
  const client = useQueryClient();
  const seen = useRef<string | undefined>(undefined);
  // Once the job it showed is over, the list is read again (its customers moved, or went).
  useEffect(() => {
    if (seen.current !== undefined && running === undefined) void client.invalidateQueries({ queryKey: customerQueries.all(appId) });
    seen.current = running?.id;
  }, [running, client, appId]);
  if (!running) return null;
  return (
    <DeferredAlert
      type="info"
      showIcon
      style={{ marginBottom: 12 }}
      message={t(`customers.bulk.progress.title.${running.action as 'assign'}`)}
      description={t('customers.bulk.progress.running', { processed: running.processed, total: running.total })}
      action={
        <Button size="small" onClick={() => onShow(running.id)}>
          {t('customers.bulk.show')}
        </Button>
      }
    />
  );
}
