import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap } from '../../shared/api/client.ts';
import type { inputOf } from './model.ts';

/** How often the card asks again while the server scores the project's customers again. */
const RECOMPUTE_POLL_MS = 3000;

/** The project's scoring rules (docs/scoring.md, "Settings"): any member reads them. */
export const scoringQuery = (appId: string) =>
  queryOptions({
    queryKey: ['scoring', appId],
    queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/scoring', { params: { path: { appId } } })),
    // Until the recompute a change started is done, its end is looked for.
    refetchInterval: (q) => (q.state.data?.recomputing ? RECOMPUTE_POLL_MS : false),
  });

export type ScoringSettings = Awaited<ReturnType<NonNullable<ReturnType<typeof scoringQuery>['queryFn']>>>;

/** Changes the rules (Master/Admin); the answer is the rules stored, `recomputing` while scores are made again. */
export function useSaveScoring(appId: string) {
  const client = useQueryClient();
  return useMutation({
    // A refusal is shown at the field it names, not as a toast.
    meta: { silent: true },
    mutationFn: async (input: ReturnType<typeof inputOf>) =>
      unwrap(await api.PUT('/api/v1.7/app/{appId}/scoring', { params: { path: { appId } }, body: input })),
    onSuccess: (rules) => {
      client.setQueryData(scoringQuery(appId).queryKey, rules);
      return client.invalidateQueries({ queryKey: ['audit', appId] });
    },
  });
}

/** The detail of a `scoring_invalid` refusal (it names the setting), or undefined for any other failure. */
export function invalidSetting(error: unknown): string | undefined {
  return error instanceof ApiError && error.code === 'scoring_invalid' ? error.detail : undefined;
}
