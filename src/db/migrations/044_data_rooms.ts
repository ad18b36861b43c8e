import { type Kysely, sql } from 'kysely';

/**
 * Data rooms (docs/rooms.md, ADR 0045), owned by the rooms module: a room is a named set of a
 * project's files, in folders, shared by one link (a link of type 4, `links.room_id`).
 *
 * `rooms`: a room of a project, its name and its creator (`creator_id`: Sales members change their own).
 *
 * `room_items`: the room's tree, one row per folder or document, numbered in reading order (a
 * depth-first walk: `position` from 0); `parent` is the position of the folder it is in, null at the
 * root. `kind` `folder` (its `name`) or `file` (its `file_id`, a file of the project, once per room:
 * the unique index is also the viewer's "is this file in the room" on every request). The tree is
 * replaced whole by an edit.
 *
 * `links.room_id`: the room a link of type 4 shows; null for the other types.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table rooms (
    id text primary key,
    app_id text not null,
    name text not null,
    creator_id integer not null,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index rooms_app_idx on rooms (app_id, created_at, id)`.execute(db);
  await sql`create index rooms_creator_idx on rooms (app_id, creator_id, created_at, id)`.execute(db);

  await sql`create table room_items (
    app_id text not null,
    room_id text not null,
    position integer not null,
    parent integer,
    kind text not null,
    name text,
    file_id text,
    primary key (app_id, room_id, position)
  )`.execute(db);
  await sql`create unique index room_items_file_uq on room_items (app_id, room_id, file_id)`.execute(db);

  await sql`alter table links add column room_id text`.execute(db);
  await sql`create index links_room_idx on links (app_id, room_id) where room_id is not null`.execute(db);
}
