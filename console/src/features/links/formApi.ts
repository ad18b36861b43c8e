import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { linkQueries } from './api.ts';

/*
 * The link form's requests: upload a deck, make a link, edit one. Apart from api.ts, which the
 * console's first load holds (the live stream refreshes the link queries): these load with the form.
 */

/** What the link form sends (the API's names). */
export interface LinkInput {
  name: string;
  type: 1 | 2 | 3;
  file_id?: string;
  website?: string;
  customer_id?: string;
  passcode?: string;
  expires_at?: string;
  allow_download?: 0 | 1;
  email_gate?: 0 | 1;
  watermark?: 0 | 1;
  email_verify?: 0 | 1;
  /** Comma lists of addresses and domains. */
  allow_list?: string;
  deny_list?: string;
  agreement?: string;
}

export function useUploadFile(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return unwrap(
        await api.POST('/api/v1.7/app/{appId}/files', {
          params: { path: { appId } },
          // multipart/form-data: the browser sets the type and boundary.
          body: form as never,
          bodySerializer: (b: unknown) => b as FormData,
        }),
      );
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['files', appId] }),
  });
}

export function useCreateLink(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: LinkInput) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/links', { params: { path: { appId }, query: { with_url: 1 } }, body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: linkQueries.all(appId) }),
  });
}

/** The fields an edit sends (a room link keeps its kind and room: the form has no room to pick). */
export type LinkEdit = Partial<Omit<LinkInput, 'type' | 'name'>> & { name?: string; type?: 1 | 2 | 3 };

/** Edits a link: the fields given change (`''` removes a passcode, an expiry, a list, the agreement…); the links' queries are read again. */
export function useUpdateLink(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ linkId, input }: { linkId: string; input: LinkEdit }) =>
      unwrap(
        await api.PUT('/api/v1.7/app/{appId}/link/{linkId}', {
          params: { path: { appId, linkId }, query: { with_url: 1 } },
          body: input,
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: linkQueries.all(appId) }),
  });
}
