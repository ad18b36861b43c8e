import type { ViewerFile } from '../files/service.ts';
import type { ViewerRoom } from '../rooms/service.ts';
import type { FormField, Unavailable } from './mapper.ts';

/** The form's fields when a link names none (as the Link record shows them). */
export const DEFAULT_FORM_FIELDS: readonly FormField[] = ['name', 'email', 'phone', 'company'];

/** Who is behind a public request (the routes read it from the request). */
export interface VisitorRequest {
  userAgent: string | undefined;
  ip: string | undefined;
  /** The first-party visitor cookie's id (the route made a new one when the browser had none). */
  visitorId: string;
  /**
   * A platform user signed in on this request, or null: a bearer token on it (and, where the
   * console keeps a session cookie, that session). A member of the link's project is never counted.
   */
  userId: number | null;
  /** The link's unlock cookie (a passcode given, the e-mail gate passed), as the browser sent it. */
  unlock: string | undefined;
  /** The `rapport_click` parameter a campaign's tracked link added to the address, if any. */
  mailClick?: string | undefined;
}

/** The project behind a link, as its reader sees it: its name and its logo's address (docs/projects.md, "Logo"). */
export interface Brand {
  name: string;
  logo: string | null;
}

/** What the viewer page of a file link shows. */
export interface FileViewerModel {
  kind: 'file';
  shareToken: string;
  title: string;
  viewToken: string | null;
  file: ViewerFile;
  formPosition: number | null;
  formFields: FormField[];
  download: boolean;
  brand: Brand | null;
  /** A document of a room link (docs/rooms.md): the room's title, to go back to it, and the document's file id. */
  room?: { title: string; fileId: string };
}

/** The page of a room link: the room's tree (docs/rooms.md). */
export interface RoomViewerModel {
  kind: 'room';
  shareToken: string;
  title: string;
  viewToken: string | null;
  room: ViewerRoom;
  brand: Brand | null;
}

/** A web page link shown in a frame (embed) or opened after the view is recorded. */
export interface WebViewerModel {
  kind: 'web';
  shareToken: string;
  title: string;
  viewToken: string | null;
  website: string;
  embed: boolean;
  formPosition: number | null;
  formFields: FormField[];
  brand: Brand | null;
}

/** The viewer's answer to `GET /l/{token}`: a gate, a page, a redirect, or why the link does not open. */
export type ViewerAnswer =
  | { kind: 'unavailable'; why: Unavailable }
  | { kind: 'passcode'; shareToken: string; title: string; wrong: boolean; lockedFor?: number; brand?: Brand | null }
  | { kind: 'email'; shareToken: string; title: string; invalid: boolean; brand?: Brand | null }
  | { kind: 'redirect'; url: string }
  | { kind: 'document-missing'; title: string }
  | FileViewerModel
  | RoomViewerModel
  | WebViewerModel;
