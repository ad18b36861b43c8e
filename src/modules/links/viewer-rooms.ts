import type { Clock } from '../../lib/time.ts';
import type { RoomReads, ViewerRoom } from '../rooms/service.ts';

/** How long the viewer keeps a room's tree (its documents' names and pages) before reading it again. */
const ROOM_CACHE_MS = 5000;
const ROOM_CACHE_SIZE = 1000;

/** Whether every document of a tree is rendered (a tree with one still rendering is not kept). */
const settled = (room: ViewerRoom): boolean => {
  const walk = (items: ViewerRoom['items']): boolean =>
    items.every((i) => (i.type === 'folder' ? walk(i.items) : i.status !== 'processing'));
  return walk(room.items);
};

/**
 * What the viewer shows of a room (its name, its tree with each document's name and pages), read for
 * every room page and document page, so kept a few seconds in memory: an edit of the tree shows on
 * the room's page within ROOM_CACHE_MS. Whether a file is one of the room's documents is never taken
 * from here: every document page, image and beacon asks the rooms module (room-viewer.ts).
 */
export function createViewerRooms(clock: Clock, rooms: Pick<RoomReads, 'viewerRoom'>) {
  const cache = new Map<string, { until: number; room: Promise<ViewerRoom | null> }>();
  return function viewerRoom(appId: string, roomId: string): Promise<ViewerRoom | null> {
    const key = `${appId}\u0000${roomId}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.room;
    if (cache.size >= ROOM_CACHE_SIZE) cache.clear();
    const room = rooms.viewerRoom(appId, roomId);
    cache.set(key, { until: now + ROOM_CACHE_MS, room });
    void room.then(
      (r) => {
        if (r === null || !settled(r)) cache.delete(key);
      },
      () => cache.delete(key),
    );
    return room;
  };
}

export type ViewerRooms = ReturnType<typeof createViewerRooms>;
