import { type TSchema, Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';

const Id = Type.String({ maxLength: 64 });

export const RoomParams = Type.Object({ appId: Id, roomId: Id });
export const RoomsQuery = Type.Object({ ...PagingQuery });

/** Folders nest at most this deep (tree.ts MAX_FOLDER_DEPTH): the schema says so level by level. */
const DEPTH = 4;

const DocumentIn = Type.Object({
  type: Type.Literal('file'),
  file_id: Type.String({ maxLength: 64, description: 'a file of the project (docs/files.md), once per room' }),
});

/** A folder at `level` (1: at the root) and what it may hold: documents, and folders while the depth allows. */
function folderIn(level: number): TSchema {
  const inner = level >= DEPTH ? DocumentIn : Type.Union([DocumentIn, folderIn(level + 1)]);
  return Type.Object({
    type: Type.Literal('folder'),
    name: Type.String({ maxLength: 1000, description: '1–200 characters' }),
    items: Type.Optional(Type.Array(inner, { maxItems: 500, description: 'its folders and documents, in order' })),
  });
}

const ItemsIn = Type.Array(Type.Union([DocumentIn, folderIn(1)]), {
  maxItems: 500,
  description:
    'the whole tree, in order: documents ({type:"file", file_id}) and folders ({type:"folder", name, items}), folders at most 4 deep, ' +
    'at most 500 folders and documents in all, each file once',
});

/** A room's fields: `name` required on create; on edit, the name and the tree given change (a tree replaces the whole tree). */
export const RoomBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000, description: 'the room name, 1–255 characters (required on create)' })),
  items: Type.Optional(ItemsIn),
});

const DocumentOut = Type.Object({
  type: Type.Literal('file'),
  fileId: Type.String(),
  name: Type.String({ description: "the file's name, as it is now" }),
  pageCount: Type.Integer(),
  version: Type.Integer({ description: "the file's version: a new version shows in the room" }),
  status: Type.String({ description: 'processing, ready or failed (docs/files.md)' }),
  renderedPages: Type.Integer(),
});

function folderOut(level: number): TSchema {
  const inner = level >= DEPTH ? DocumentOut : Type.Union([DocumentOut, folderOut(level + 1)]);
  return Type.Object({ type: Type.Literal('folder'), name: Type.String(), items: Type.Array(inner) });
}

export const Room = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: Type.String(),
  creatorId: Type.String({ description: 'the member who made it (Sales members change their own rooms)' }),
  items: Type.Array(Type.Union([DocumentOut, folderOut(1)]), {
    description: "the tree, in order; a document whose file is no longer the project's is left out",
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
