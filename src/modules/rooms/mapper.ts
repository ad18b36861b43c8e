import type { Selectable } from 'kysely';
import type { RoomItemsTable, RoomsTable } from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';
import type { RoomItem } from './tree.ts';

export type RoomRow = Selectable<RoomsTable>;
export type RoomItemRow = Selectable<RoomItemsTable>;

/** A room as the API shows it (docs/rooms.md): its tree with each document's file as it is now. */
export function toRoom(r: RoomRow, items: RoomItem[], clock: Clock) {
  return {
    id: r.id,
    appId: r.app_id,
    name: r.name,
    creatorId: String(r.creator_id),
    items,
    createdAt: clock.format(r.created_at),
    updatedAt: clock.format(r.updated_at),
  };
}

export type RoomResponse = ReturnType<typeof toRoom>;
