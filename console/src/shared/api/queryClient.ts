import { ApiError } from '@rapport/sdk';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';

/** Shows a failed query's or mutation's error once (set by the app shell, which has antd's App). */
export const errorReporter: { current: ((error: unknown) => void) | null } = { current: null };

declare module '@tanstack/react-query' {
  interface Register {
    /** `silent`: the component shows the failure itself (a form puts field errors on its fields). */
    queryMeta: { silent?: boolean };
    mutationMeta: { silent?: boolean };
  }
}

/**
 * A failure worth asking again: the network's, or the server's `overloaded` (it did nothing with the
 * request and said when to come back). Every other answer of the server is final (a code).
 */
export function isTransient(error: unknown): boolean {
  return !(error instanceof ApiError) || error.code === 'overloaded';
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (!query.meta?.silent) errorReporter.current?.(error);
    },
  }),
  mutationCache: new MutationCache({
    onError: (error, _vars, _ctx, mutation) => {
      if (!mutation.meta?.silent) errorReporter.current?.(error);
    },
  }),
  defaultOptions: {
    queries: {
      // Data a salesperson looks at changes by the minute, and live events invalidate what they touch.
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // The server's answers are final (a code); only a transient failure is worth a second try.
      retry: (count, error) => isTransient(error) && count < 2,
    },
  },
});
