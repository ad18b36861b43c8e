/**
 * Paging over the API's lists (`start_index` and `count`, at most 100 a page): every item of a list,
 * a page at a time, as an async iterator.
 *
 *   for await (const c of allPages((page) => client.GET('/api/v1.7/app/{app-id}/member/{svc-user-id}/customers', {
 *     params: { path: { 'app-id': appId, 'svc-user-id': 'all' }, query: page },
 *   }))) { ... }
 */
import { unwrap } from './client.js';

/** The page a call asks for. */
export interface PageQuery {
  start_index: number;
  count: number;
}

/** The page size of `allPages` unless told: the largest a list serves. */
export const MAX_PAGE = 100;

/**
 * Every item of a list: `fetchPage` is called with successive pages until one comes back shorter
 * than asked. Each answer is unwrapped (a failure throws ApiError).
 */
export async function* allPages<T>(
  fetchPage: (page: PageQuery) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  pageSize = MAX_PAGE,
): AsyncGenerator<T> {
  for (let start = 0; ; start += pageSize) {
    const items = unwrap(await fetchPage({ start_index: start, count: pageSize })) as unknown;
    if (!Array.isArray(items)) throw new TypeError('allPages: the call does not answer a list');
    for (const item of items as T[]) yield item;
    if (items.length < pageSize) return;
  }
}

/** Every item of a list, collected (for lists known to be small). */
export async function collectPages<T>(
  fetchPage: (page: PageQuery) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  pageSize = MAX_PAGE,
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of allPages<T>(fetchPage, pageSize)) out.push(item);
  return out;
}
