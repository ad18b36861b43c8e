import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

/** A campaign draft as the composer holds it (the API's names). */
export interface Draft {
  title: string;
  html: string;
  /** Whose merge values fill the preview; sample values when none. */
  customer_id?: string;
  customer_ids?: string[];
  group_id?: string;
}

/** What the composer sends to make the campaign. */
export interface CampaignInput {
  title: string;
  html: string;
  customer_ids?: string[];
  group_id?: string;
  /** `yyyy-MM-dd HH:mm:ss` in the server's zone; now when absent. */
  send_at?: string;
}

export const campaignQueries = {
  all: (appId: string) => ['campaigns', appId] as const,
  /**
   * The draft rendered by the server (its merge rules, escaping and validation), with the number of
   * recipients it would have. Nothing is stored, so it is asked again as the draft changes.
   */
  preview: (appId: string, draft: Draft) =>
    queryOptions({
      queryKey: [...campaignQueries.all(appId), 'preview', draft],
      queryFn: async () => unwrap(await api.POST('/api/v1.7/app/{appId}/post-previews', { params: { path: { appId } }, body: draft })),
      placeholderData: keepPreviousData,
      meta: { silent: true },
    }),
  /** A campaign and its progress; asked again every 2 s while it is sending or waiting. */
  campaign: (appId: string, postId: string) =>
    queryOptions({
      queryKey: [...campaignQueries.all(appId), 'item', postId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/post/{postId}', { params: { path: { appId, postId } } })),
      refetchInterval: (q) => (q.state.data?.status === 'active' ? 2000 : false),
      meta: { silent: true },
    }),
};

export type CampaignPreview = Awaited<ReturnType<NonNullable<ReturnType<typeof campaignQueries.preview>['queryFn']>>>;
export type Campaign = Awaited<ReturnType<NonNullable<ReturnType<typeof campaignQueries.campaign>['queryFn']>>>;

/** Mails the draft to the caller's own address, marked [Test]; failures are the composer's to show. */
export function useSendTest(appId: string) {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (draft: Draft) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/post-tests', { params: { path: { appId } }, body: draft })),
  });
}

/** Makes the campaign; field failures are the composer's to show. */
export function useCreateCampaign(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: CampaignInput) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/posts', { params: { path: { appId } }, body: input })),
    onSuccess: (campaign) => {
      client.setQueryData(campaignQueries.campaign(appId, campaign.postId).queryKey, campaign);
      void client.invalidateQueries({ queryKey: ['posts', appId] });
    },
  });
}

/** Pauses, resumes or cancels a campaign. */
export function useCampaignAction(appId: string, postId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (action: 'pause' | 'resume' | 'cancel') => {
      const params = { params: { path: { appId, postId } } };
      const path = `/api/v1.7/app/{appId}/post/{postId}/${action}` as const;
      return unwrap(await api.POST(path, params));
    },
    onSuccess: (campaign) => {
      client.setQueryData(campaignQueries.campaign(appId, postId).queryKey, campaign);
      void client.invalidateQueries({ queryKey: ['posts', appId] });
    },
  });
}
