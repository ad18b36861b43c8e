import { useSearchParams } from 'react-router';
import type { CustomerListParams } from './api.ts';
import { ACTIVITY_KINDS, type ActivityKind, PERIODS, type Period, SORT_KEYS, type SortKey } from './listOptions.ts';

const PAGE_SIZE = 20;
/** The group filter's value for "in no group" (the API's empty group_id). */
export const NO_GROUP = '-';

const oneOf = <T extends string>(values: readonly T[], v: string | null): T | undefined =>
  v !== null && (values as readonly string[]).includes(v) ? (v as T) : undefined;

/**
 * The list's state, all of it in the URL (owner, q, group, sort, order, activity, period, page): a
 * link or a reload shows the same list. Values the console does not know are left out.
 */
export function useListParams(appId: string): [CustomerListParams, (patch: Record<string, string | undefined>) => void] {
  const [search, setSearch] = useSearchParams();
  const group = search.get('group') ?? undefined;
  const params: CustomerListParams = {
    appId,
    owner: search.get('owner') ?? 'all',
    keyword: search.get('q') ?? '',
    group: group === NO_GROUP ? '' : group,
    sort: oneOf<SortKey>(SORT_KEYS, search.get('sort')) ?? 'updated',
    order: oneOf(['asc', 'desc'] as const, search.get('order')),
    activity: oneOf<ActivityKind>(ACTIVITY_KINDS, search.get('activity')),
    period: oneOf<Period>(PERIODS, search.get('period')),
    page: Math.max(1, Number(search.get('page')) || 1),
    pageSize: PAGE_SIZE,
  };
  const update = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    // A new filter or order starts from its first page.
    if (!('page' in patch)) next.delete('page');
    setSearch(next);
  };
  return [params, update];
}
