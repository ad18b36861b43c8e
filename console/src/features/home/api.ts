import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { customerQueries } from '../customers/index.ts';

/** The hot leads' views: one row a customer, or a row a buying group (`group_by=company`). */
export type HotView = 'people' | 'accounts';

export interface HotLeadParams {
  appId: string;
  /** A member's platform user id, or 'all' (Sales: their own anyway). */
  owner: string;
  view: HotView;
  page: number;
}

export const HOT_PAGE = 10;

const fetchHot = async (p: HotLeadParams) =>
  unwrap(
    await api.GET('/api/v1.7/app/{appId}/hot-leads', {
      params: {
        path: { appId: p.appId },
        query: {
          svc_user_id: p.owner,
          start_index: (p.page - 1) * HOT_PAGE,
          // One more than shown says whether there is a next page (the API answers pages, not totals).
          count: HOT_PAGE + 1,
          ...(p.view === 'accounts' ? { group_by: 'company' } : {}),
        },
      },
    }),
  );

type HotAnswer = Awaited<ReturnType<typeof fetchHot>>;
export type HotLead = Extract<HotAnswer[number], { customerId: string }>;
export type HotAccount = Extract<HotAnswer[number], { account: string }>;

export const hotLeadQueries = {
  /**
   * A page of hot leads (docs/scoring.md "Hot leads"). Under the customers' key: the live stream
   * reads them again when a customer's event arrives (a record that earned points is one).
   */
  page: (p: HotLeadParams) =>
    queryOptions({
      queryKey: [...customerQueries.all(p.appId), 'hot', p],
      queryFn: async () => {
        const rows = await fetchHot(p);
        const shown = rows.slice(0, HOT_PAGE);
        return p.view === 'accounts'
          ? { view: 'accounts' as const, accounts: shown as HotAccount[], leads: [], hasMore: rows.length > HOT_PAGE }
          : { view: 'people' as const, accounts: [], leads: shown as HotLead[], hasMore: rows.length > HOT_PAGE };
      },
      placeholderData: keepPreviousData,
    }),
};
