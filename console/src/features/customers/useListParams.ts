import { useSearchParams } from 'react-router';
import type { CustomerListParams } from './api.ts';

const PAGE_SIZE = 20;
/** The group filter's value for "in no group" (the API's empty group_id). */
export const NO_GROUP = '-';

/** The list's state, all of it in the URL: a link or a reload shows the same list. */
export function useListParams(appId: string): [CustomerListParams, (patch: Record<string, string | undefined>) => void] {
  const [search, setSearch] = useSearchParams();
  const group = search.get('group') ?? undefined;
  const params: CustomerListParams = {
    appId,
    owner: search.get('owner') ?? 'all',
    keyword: search.get('q') ?? '',
    group: group === NO_GROUP ? '' : group,
    page: Math.max(1, Number(search.get('page')) || 1),
    pageSize: PAGE_SIZE,
  };
  const update = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    // A new filter starts from its first page.
    if (!('page' in patch)) next.delete('page');
    setSearch(next);
  };
  return [params, update];
}
