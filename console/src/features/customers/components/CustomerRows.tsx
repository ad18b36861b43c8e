import { Skeleton } from 'antd';
import { Suspense, lazy } from 'react';
import type { Selection } from '../bulk/useSelection.ts';
import type { CustomerListModel } from '../useCustomerList.ts';

// Each screen loads only the view it shows: antd's table (and what it brings: its tree, filters,
// sorter) on a wide one, the cards on a narrow one.
const loadTable = () => import('./CustomerTable.tsx').then((m) => ({ default: m.CustomerTable }));
const loadCards = () => import('./CustomerCards.tsx').then((m) => ({ default: m.CustomerCards }));
const CustomerTable = lazy(loadTable);
const CustomerCards = lazy(loadCards);

/** At the width the page opens with, its view is asked for as soon as the page's code runs, not after its first render. */
export function preloadRows(wide: boolean): void {
  void (wide ? loadTable() : loadCards()).catch(() => undefined);
}

/**
 * The page of customers: a table on a wide screen (≥ 768 px, antd's `md`), cards on a narrow one;
 * a skeleton while the view's code loads.
 */
export function CustomerRows({ list, wide, selection }: { list: CustomerListModel; wide: boolean; selection?: Selection }) {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
      {wide ? <CustomerTable list={list} selection={selection} /> : <CustomerCards list={list} selection={selection} />}
    </Suspense>
  );
}
