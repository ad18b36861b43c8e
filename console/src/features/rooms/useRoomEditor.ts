import { useQuery } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { roomQueries, useDeleteRoom, useSaveRoom, useShareRoom } from './api.ts';
import {
  type DraftItem,
  type PickableFile,
  type StoredItem,
  addFiles,
  addFolder,
  countItems,
  fileIdsOf,
  fromStored,
  move,
  problems,
  remove,
  rename,
  toBody,
} from './model.ts';

/**
 * The room editor's state and doings: the room's name and tree as the member edits them, the file
 * picker (which folder it adds to), what keeps the room from being saved (shown once Save is pressed),
 * saving the whole tree, deleting the room, and a link that shares it.
 */
export function useRoomEditor() {
  const { appId = '', roomId = '' } = useParams();
  const { t } = useLazyTexts('rooms');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const stored = useQuery(roomQueries.item(appId, roomId));
  const files = useQuery(roomQueries.files(appId));
  const [name, setName] = useState('');
  const [items, setItems] = useState<DraftItem[]>([]);
  const [loaded, setLoaded] = useState<unknown>(undefined);
  const [tried, setTried] = useState(false);
  const [dirty, setDirty] = useState(false);
  /** The folder the picker adds to: null the root, undefined closed. */
  const [pickingFor, setPickingFor] = useState<string | null | undefined>(undefined);
  const save = useSaveRoom(appId);
  const del = useDeleteRoom(appId);
  const share = useShareRoom(appId);

  useEffect(() => {
    if (stored.data && stored.data !== loaded) {
      setName(stored.data.name);
      setItems(fromStored(stored.data.items as StoredItem[]));
      setLoaded(stored.data);
      setDirty(false);
    }
  }, [stored.data, loaded]);

  const edit = (change: (d: DraftItem[]) => DraftItem[]) => {
    setItems(change);
    setDirty(true);
  };
  const fail = (err: unknown) => {
    const detail = errorDetail(err);
    void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
  };
  const found = tried ? problems(name, items) : [];
  const inRoom = fileIdsOf(items);
  const pickable: PickableFile[] = (files.data ?? [])
    .filter((f) => f.status !== 'failed' && !inRoom.has(f.id))
    .map((f) => ({ id: f.id, name: f.name, pageCount: f.pageCount }));

  return {
    appId,
    roomId,
    stored,
    name,
    setName: (n: string) => {
      setName(n);
      setDirty(true);
    },
    items,
    count: countItems(items),
    dirty,
    has: (p: 'name' | 'folderName') => found.includes(p),
    addFolder: (parent: string | null) => edit((d) => addFolder(d, parent, t('rooms.editor.newFolder'))),
    rename: (key: string, n: string) => edit((d) => rename(d, key, n)),
    move: (key: string, delta: -1 | 1) => edit((d) => move(d, key, delta)),
    removeItem: (key: string) => edit((d) => remove(d, key)),
    picker: {
      open: pickingFor !== undefined,
      files: pickable,
      loading: files.isLoading,
      show: (parent: string | null) => setPickingFor(parent),
      close: () => setPickingFor(undefined),
      add: (ids: string[]) => {
        const chosen = pickable.filter((f) => ids.includes(f.id));
        edit((d) => addFiles(d, pickingFor ?? null, chosen));
        setPickingFor(undefined);
      },
    },
    submit: () => {
      setTried(true);
      if (problems(name, items).length > 0) return void message.error(t('rooms.editor.fix'));
      save.mutate(
        { id: roomId, name: name.trim(), items: toBody(items) },
        {
          onSuccess: () => {
            void message.success(t('rooms.editor.saved'));
            setTried(false);
            setDirty(false);
          },
          onError: fail,
        },
      );
    },
    saving: save.isPending,
    deleteRoom: () =>
      del.mutate(roomId, {
        onSuccess: () => {
          void message.success(t('rooms.editor.deleted'));
          void navigate(`/p/${appId}/rooms`);
        },
      }),
    deleting: del.isPending,
    share: () => share.mutate({ roomId, name: t('rooms.share.linkName', { name: stored.data?.name ?? name }) }, { onError: fail }),
    sharing: share.isPending,
    sharedUrl: share.data?.url,
  };
}

export type RoomEditor = ReturnType<typeof useRoomEditor>;
