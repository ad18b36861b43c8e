import { useQuery } from '@tanstack/react-query';
import { useParams, useSearchParams } from 'react-router';
import { usePeople } from '../tasks/index.ts';
import { type HotView, hotLeadQueries } from './api.ts';

/**
 * The home page's state: the view (people or accounts), the owner (Master and Admin: anyone's or
 * everyone's; Sales: their own whatever the URL says) and the page, all in the URL
 * (`?view=accounts&owner=&page=`, the defaults left out); the page of hot leads they ask for.
 */
export function useHome() {
  const { appId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const people = usePeople(appId);
  const view: HotView = search.get('view') === 'accounts' ? 'accounts' : 'people';
  const raw = search.get('owner');
  const owner = people.manages && raw !== null && /^\d{1,10}$/.test(raw) ? raw : 'all';
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1);
  const hot = useQuery({ ...hotLeadQueries.page({ appId, owner, view, page }), enabled: people.ready });
  /** Another view or owner starts at its first page. */
  const update = (patch: { view?: HotView; owner?: string; page?: number }) => {
    const next = new URLSearchParams(search);
    const set = (k: string, v: string | undefined) => (v === undefined ? next.delete(k) : next.set(k, v));
    if (patch.view !== undefined) set('view', patch.view === 'people' ? undefined : patch.view);
    if (patch.owner !== undefined) set('owner', patch.owner === 'all' ? undefined : patch.owner);
    set('page', patch.page !== undefined && patch.page > 1 ? String(patch.page) : undefined);
    setSearch(next, { replace: patch.page === undefined });
  };
  return {
    appId,
    view,
    owner,
    page,
    update,
    people,
    hot,
    loading: !people.ready || hot.isLoading,
    replacing: hot.isFetching && hot.isPlaceholderData,
  };
}

export type HomeModel = ReturnType<typeof useHome>;
