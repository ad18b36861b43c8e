import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { type DownloadedFile, readFile } from '../../shared/api/download.ts';
import { linkQueries } from './api.ts';

/* Who may read a link: its agreement's acceptances (apart from api.ts, in the console's first load). */

/** Acceptances per page of a link's agreement. */
export const ACCEPTANCE_PAGE_SIZE = 10;

export const gateQueries = {
  /** A page of the acceptances of a link's agreement, newest first; one row more says whether there is a next page. */
  acceptances: (appId: string, linkId: string, page: number) =>
    queryOptions({
      queryKey: [...linkQueries.all(appId), 'item', linkId, 'agreements', page],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/link/{linkId}/agreements', {
            params: {
              path: { appId, linkId },
              query: { start_index: (page - 1) * ACCEPTANCE_PAGE_SIZE, count: ACCEPTANCE_PAGE_SIZE + 1 },
            },
          }),
        );
        return { rows: rows.slice(0, ACCEPTANCE_PAGE_SIZE), hasMore: rows.length > ACCEPTANCE_PAGE_SIZE };
      },
      placeholderData: keepPreviousData,
    }),
};

/** Every acceptance of a link's agreement as the CSV the API writes. */
export async function acceptancesCsv(appId: string, linkId: string): Promise<DownloadedFile> {
  return readFile(
    await api.GET('/api/v1.7/app/{appId}/link/{linkId}/agreements', {
      params: { path: { appId, linkId }, query: { format: 'csv' } },
      parseAs: 'stream',
    }),
    'link-agreements.csv',
  );
}
