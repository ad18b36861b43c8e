import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { meQuery } from '../../shared/api/me.ts';
import { memberQueries } from '../members/index.ts';
import { customerQueries } from './api.ts';
import { useImportNotice } from './import/useImportNotice.ts';
import { useListParams } from './useListParams.ts';

/**
 * The customer list's state and requests: its filters and page (in the URL), the list, the groups and
 * members the filters offer, the caller's role (Master and Admin see every owner's customers), the
 * import notice, and which drawer is open (a new customer, the import wizard).
 */
export function useCustomerList() {
  const { appId = '' } = useParams();
  const [params, update] = useListParams(appId);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState<{ resume?: string } | null>(null);
  const me = useQuery(meQuery());
  const notice = useImportNotice(appId, me.data?.id);
  const members = useQuery(memberQueries.list(appId));
  const groups = useQuery(customerQueries.groups(appId));
  const list = useQuery(customerQueries.list(params));
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  return {
    appId,
    params,
    update,
    me,
    notice,
    members: members.data ?? [],
    groups: groups.data ?? [],
    rows: list.data?.rows ?? [],
    total: list.data?.total ?? 0,
    /** The total is a lower bound: a filtered list's count stops at 10,000 (docs/customers.md). */
    capped: Boolean(list.data?.capped),
    loaded: list.data !== undefined,
    seesAll: myRole === 'Master' || myRole === 'Admin',
    // The list is dimmed only while it is replaced (a first load, another page or filter), not while a
    // live event refreshes it in the background: that happens every few seconds on a busy project.
    replacing: list.isLoading || (list.isFetching && list.isPlaceholderData),
    filtered:
      params.keyword !== '' ||
      params.group !== undefined ||
      params.owner !== 'all' ||
      params.activity !== undefined ||
      params.period !== undefined,
    creating,
    setCreating,
    importing,
    setImporting,
  };
}

export type CustomerListModel = ReturnType<typeof useCustomerList>;
