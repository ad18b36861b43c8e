import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { i18n } from '../../shared/i18n/i18n.ts';
import { api, unwrap } from '../../shared/api/client.ts';
import { type ActivityKind, type Period, type SortKey, type SortOrder, periodQuery } from './listOptions.ts';

/** What the customer list shows: the URL's state (see CustomersPage). */
export interface CustomerListParams {
  appId: string;
  /** A member's platform user id, or 'all' (Sales: only their own anyway). */
  owner: string;
  keyword: string;
  /** A group id, '' for "in no group", undefined for any. */
  group: string | undefined;
  /** undefined: by last change. */
  sort?: SortKey | undefined;
  /** undefined: the sort's own default (defaultOrder). */
  order?: SortOrder | undefined;
  /** Only customers with this kind of activity (in `period`, if given); undefined: no activity filter. */
  activity?: ActivityKind | undefined;
  period?: Period | undefined;
  page: number;
  pageSize: number;
}

export const customerQueries = {
  all: (appId: string) => ['customers', appId] as const,
  /** A page of the list in its order, and the number of customers that match (the API's X-Total-Count). */
  list: (p: CustomerListParams) =>
    queryOptions({
      queryKey: [...customerQueries.all(p.appId), 'list', p],
      queryFn: async () => {
        const result = await api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customers', {
          params: {
            path: { appId: p.appId, svcUserId: p.owner },
            query: {
              start_index: (p.page - 1) * p.pageSize,
              count: p.pageSize,
              ...(p.keyword ? { keyword: p.keyword } : {}),
              ...(p.group !== undefined ? { group_id: p.group } : {}),
              ...(p.sort && p.sort !== 'updated' ? { sort: p.sort } : {}),
              ...(p.order ? { order: p.order } : {}),
              ...(p.activity ? { activity: p.activity } : {}),
              ...periodQuery(p.period, i18n.language),
            },
          },
        });
        const rows = unwrap(result);
        const header = result.response.headers.get('X-Total-Count');
        const total = header === null ? (p.page - 1) * p.pageSize + rows.length : Number(header);
        return { rows, total, capped: result.response.headers.get('X-Total-Count-Capped') === 'true' };
      },
      placeholderData: keepPreviousData,
    }),
  detail: (appId: string, customerId: string) =>
    queryOptions({
      queryKey: [...customerQueries.all(appId), 'item', customerId, 'detail'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/customer/{customerId}/detail', { params: { path: { customerId } } })),
    }),
  metadata: (appId: string) =>
    queryOptions({
      queryKey: ['metadata', appId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/metadata/customer', { params: { query: { app_id: appId } } })),
      staleTime: 10 * 60_000,
    }),
  /** Groups the caller may see (Master/Admin: every member's; Sales: their own). */
  groups: (appId: string) =>
    queryOptions({
      queryKey: ['groups', appId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/customer-groups', { params: { path: { appId }, query: {} } })),
    }),
};

export type CustomerListItem = Awaited<ReturnType<NonNullable<ReturnType<typeof customerQueries.list>['queryFn']>>>['rows'][number];
export type Customer = Awaited<ReturnType<NonNullable<ReturnType<typeof customerQueries.detail>['queryFn']>>>;
export type MetadataItem = Awaited<ReturnType<NonNullable<ReturnType<typeof customerQueries.metadata>['queryFn']>>>[number];
export type CustomerGroup = Awaited<ReturnType<NonNullable<ReturnType<typeof customerQueries.groups>['queryFn']>>>[number];

/** Creates (no `customerId`) or edits a customer as `actingUserId`; field failures are the form's to show. */
export function useSaveCustomer(appId: string, actingUserId: number) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ customerId, body }: { customerId?: string; body: Record<string, string | string[]> }) => {
      const path = { appId, svcUserId: String(actingUserId) };
      // The body's names are the metadata's, which the API takes as they are spelt.
      const sent = body as never;
      return customerId === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/member/{svcUserId}/customers', { params: { path }, body: sent }))
        : unwrap(
            await api.PUT('/api/v1.7/app/{appId}/member/{svcUserId}/customer/{customerId}', {
              params: { path: { ...path, customerId } },
              body: sent,
            }),
          );
    },
    onSuccess: () => client.invalidateQueries({ queryKey: customerQueries.all(appId) }),
  });
}

/** A custom field's definition as the editor sends it (docs/metadata.md "Editable fields"). */
export interface FieldDefinition {
  name?: string;
  label?: string;
  type?: string;
  required?: boolean;
  unique?: boolean;
  readonly?: boolean;
  searchable?: boolean;
  options?: { value: string; label: string }[];
  index?: number;
}

/** Adds a custom field, or (with `editing`) edits a field; the form shows the failures. */
export function useSaveField(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ editing, body }: { editing?: string; body: FieldDefinition }) =>
      editing === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/metadata/customer', { params: { path: { appId } }, body }))
        : unwrap(await api.PUT('/api/v1.7/app/{appId}/metadata/customer/{name}', { params: { path: { appId, name: editing } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['metadata', appId] }),
  });
}

/** Removes a custom field from the form (its values are kept). */
export function useRemoveField(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/metadata/customer/{name}', { params: { path: { appId, name } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['metadata', appId] }),
  });
}
