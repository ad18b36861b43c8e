import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { importQueries, refreshCustomers } from './api.ts';
import { isSettled, noticedImport, runningImport } from './model.ts';

/**
 * The import the notice above the customer list shows: the running one, kept once it ends until the
 * user has seen how (closed the notice, or the wizard after its summary). Its customers join the list
 * as soon as it is over (the live stream's refreshes come a second apart).
 */
export function useImportNotice(appId: string, me: number | undefined) {
  const imports = useQuery({ ...importQueries.recent(appId, me ?? 0), enabled: me !== undefined });
  const [watched, setWatched] = useState<string | null>(null);
  const runningId = runningImport(imports.data ?? [])?.id;
  useEffect(() => {
    if (runningId !== undefined) setWatched(runningId);
  }, [runningId]);
  const noticed = noticedImport(imports.data ?? [], watched);
  const client = useQueryClient();
  const ended = noticed && isSettled(noticed) ? noticed.id : undefined;
  useEffect(() => {
    if (ended !== undefined) void refreshCustomers(client, appId);
  }, [ended, client, appId]);
  return {
    noticed,
    dismiss: () => setWatched(null),
    /** The wizard closed on the summary of `seenEnded`: the notice of that import has done its work. */
    seen: (seenEnded?: string) => {
      if (seenEnded !== undefined && seenEnded === watched) setWatched(null);
    },
  };
}

export type ImportNoticeModel = ReturnType<typeof useImportNotice>;
