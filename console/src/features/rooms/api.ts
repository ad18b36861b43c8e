import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import type { BodyItem } from './model.ts';

export const roomQueries = {
  all: (appId: string) => ['rooms', appId] as const,
  /** The project's rooms the member may change (Sales: their own), newest first. */
  list: (appId: string) =>
    queryOptions({
      queryKey: [...roomQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/rooms', { params: { path: { appId }, query: { count: 100 } } })),
    }),
  item: (appId: string, roomId: string) =>
    queryOptions({
      queryKey: [...roomQueries.all(appId), 'item', roomId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/room/{roomId}', { params: { path: { appId, roomId } } })),
      meta: { silent: true },
    }),
  /** The project's files for the picker, newest first (the links page reads the same). */
  files: (appId: string) =>
    queryOptions({
      queryKey: ['files', appId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/files', { params: { path: { appId }, query: { count: 100 } } })),
    }),
};

export type RoomSummary = Awaited<ReturnType<NonNullable<ReturnType<typeof roomQueries.list>['queryFn']>>>[number];

/** Makes a room (no id) or changes one: its name and its whole tree; the editor shows its own failures. */
export function useSaveRoom(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ id, name, items }: { id: string | undefined; name: string; items: BodyItem[] }) =>
      id === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/rooms', { params: { path: { appId } }, body: { name, items } }))
        : unwrap(await api.PUT('/api/v1.7/app/{appId}/room/{roomId}', { params: { path: { appId, roomId: id } }, body: { name, items } })),
    onSuccess: () => client.invalidateQueries({ queryKey: roomQueries.all(appId) }),
  });
}

export function useDeleteRoom(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (roomId: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/room/{roomId}', { params: { path: { appId, roomId } } })),
    onSuccess: () =>
      client.invalidateQueries({ queryKey: ['links', appId] }).then(() => client.invalidateQueries({ queryKey: roomQueries.all(appId) })),
  });
}

/** A new link of type 4 showing the room: its viewer address. */
export function useShareRoom(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ roomId, name }: { roomId: string; name: string }) =>
      unwrap(
        await api.POST('/api/v1.7/app/{appId}/links', {
          params: { path: { appId }, query: { with_url: 1 } },
          body: { name, type: 4, room_id: roomId },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: ['links', appId] }),
  });
}
