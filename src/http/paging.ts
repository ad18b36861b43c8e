import { Type } from '@sinclair/typebox';

/** `start_index` ≥ 0 (default 0) and `count` ≥ 1 (default 20, larger values cut to 100) — docs/interface.md §7. */
export const PagingQuery = {
  start_index: Type.Optional(Type.Integer({ minimum: 0, description: 'zero-based start index (default 0)' })),
  count: Type.Optional(Type.Integer({ minimum: 1, description: 'page size (default 20, at most 100)' })),
};

export const MAX_COUNT = 100;

export interface Page {
  offset: number;
  limit: number;
}

export function page(query: { start_index?: number | undefined; count?: number | undefined }, defaultCount = 20): Page {
  return { offset: query.start_index ?? 0, limit: Math.min(query.count ?? defaultCount, MAX_COUNT) };
}
