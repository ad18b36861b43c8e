import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { taskQueries } from './api.ts';
import { type TaskFilter, browserTimeZone, readFilter, taskQuery, writeFilter } from './model.ts';
import { useMarkDone } from './useMarkDone.ts';
import { usePeople } from './usePeople.ts';

/**
 * The Tasks page's state: the filters in the URL (`?due=&status=&assignee=&page=`, defaults left
 * out), the caller's role (the Master and Admins may look at anyone's tasks), the page of tasks
 * asked for with the browser's time zone, and ticking them off.
 */
export function useTaskList() {
  const { appId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const people = usePeople(appId);
  const filter = readFilter(search, people.manages);
  const timeZone = useMemo(browserTimeZone, []);
  const query = people.myId === undefined ? undefined : taskQuery(filter, people.myId, timeZone);
  const tasks = useQuery({
    ...taskQueries.list(appId, query ?? {}, filter.page),
    enabled: query !== undefined && people.ready,
  });
  const { mark, changing } = useMarkDone(appId);
  /** A new filter starts at its first page. */
  const change = (patch: Partial<TaskFilter>) =>
    setSearch(writeFilter({ ...filter, page: 1, ...patch }), { replace: patch.page === undefined });
  return {
    appId,
    filter,
    change,
    people,
    tasks,
    rows: tasks.data?.rows ?? [],
    hasMore: Boolean(tasks.data?.hasMore),
    loading: !people.ready || tasks.isLoading,
    mark,
    changing,
  };
}
