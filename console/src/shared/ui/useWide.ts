import { useSyncExternalStore } from 'react';

/** Where the console lays a page out for a wide screen: antd's `md` breakpoint, 768 px and more. */
const WIDE = '(min-width: 768px)';

/** Whether the screen is wide now (read before a page renders, to fetch the code of what it will show). */
export function isWideNow(): boolean {
  return typeof window !== 'undefined' && window.matchMedia?.(WIDE).matches === true;
}

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/**
 * Whether the screen is wide (antd's `Grid.useBreakpoint().md`), following its changes, and right from
 * the first render: antd's hook knows the screen only after it, and a first render drawn for a phone
 * on a wide screen would fetch the phone's view (a lazy one) for nothing.
 */
export function useWide(): boolean {
  return useSyncExternalStore(subscribe, isWideNow, () => false);
}
