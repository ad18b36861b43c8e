import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CustomerListParams } from '../api.ts';
import { periodQuery } from '../listOptions.ts';
import type { BulkTarget } from './api.ts';

/**
 * The rows chosen on the customer list: ids picked one by one (kept across pages), or "all matching"
 * the list's filters (as Gmail offers once a whole page is picked). A change of filters starts afresh.
 */
export function useSelection(params: CustomerListParams) {
  const { i18n } = useTranslation();
  const [ids, setIds] = useState<string[]>([]);
  const [allMatching, setAllMatching] = useState(false);
  const filters = [params.owner, params.keyword, params.group ?? '\u0001', params.activity ?? '', params.period ?? ''].join('\u0000');
  useEffect(() => {
    setIds([]);
    setAllMatching(false);
  }, [filters]);
  const clear = () => {
    setIds([]);
    setAllMatching(false);
  };
  /** What the bulk endpoint takes for this selection. */
  const target = (): BulkTarget =>
    allMatching
      ? {
          all: {
            svcUserId: params.owner,
            ...(params.keyword ? { keyword: params.keyword } : {}),
            ...(params.group !== undefined ? { groupId: params.group } : {}),
            // The list's activity filter and its period, read as the list reads them (today and this week in the user's calendar).
            ...(params.activity ? { activity: params.activity } : {}),
            ...periodQuery(params.period, i18n.language),
          },
        }
      : { customerIds: ids };
  return {
    ids,
    allMatching,
    any: allMatching || ids.length > 0,
    /** The rows of this page picked or not: the others' picks are kept. */
    setPage: (pageIds: string[], picked: string[]) => {
      setAllMatching(false);
      setIds((prev) => [...prev.filter((id) => !pageIds.includes(id)), ...picked]);
    },
    toggle: (id: string, on: boolean) => {
      setAllMatching(false);
      setIds((prev) => (on ? [...prev.filter((x) => x !== id), id] : prev.filter((x) => x !== id)));
    },
    selectAllMatching: () => setAllMatching(true),
    clear,
    target,
  };
}

export type Selection = ReturnType<typeof useSelection>;
