import type { ViewerFile } from '../files/service.ts';
import type { ViewerRoom } from '../rooms/service.ts';
import type { FormField, LinkRow, Unavailable } from './mapper.ts';

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
  /** The project whose share domain the request came to: another project's link is as unknown. */
  within?: string | null;
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
  /** The page images carry the reader's watermark: the page deters copying too (docs/links.md). */
  watermark: boolean;
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

/** The e-mail gate: an address (and a name) asked for, and what was wrong with the last one. */
export interface EmailGateModel {
  kind: 'email';
  shareToken: string;
  title: string;
  /** Not an e-mail address. */
  invalid: boolean;
  /** A code is mailed to the address next (`email_verify`). */
  verify?: boolean;
  /** An address the link's lists do not let through (403). */
  refused?: boolean;
  /** The code could not be mailed (503). */
  unsent?: boolean;
  /** The link mailed as many codes as it may this hour: seconds to wait (429). */
  busy?: number;
  brand?: Brand | null;
}

/** The e-mail gate's second step: the code mailed to `email`. */
export interface CodeGateModel {
  kind: 'code';
  shareToken: string;
  title: string;
  email: string;
  name?: string | undefined;
  /** What was wrong with the code given: not six digits (400), not the code (403), none or used up (400). */
  problem?: 'malformed' | 'wrong' | 'expired';
  /** Too many wrong codes for the address: seconds it stays locked (429). */
  lockedFor?: number;
  /** A new code was asked for too soon: seconds to wait (429). */
  waitFor?: number;
  brand?: Brand | null;
}

/** The agreement to accept before the document. */
export interface AgreementModel {
  kind: 'agreement';
  shareToken: string;
  title: string;
  text: string;
  version: number;
  /** The name to show in its field (the gate's). */
  name?: string | undefined;
  /** The box was not ticked (400), or the text changed since the page was shown (409). */
  problem?: 'unticked' | 'changed';
  brand?: Brand | null;
}

/** The viewer's answer to `GET /l/{token}`: a gate, a page, a redirect, or why the link does not open. */
export type ViewerAnswer =
  | { kind: 'unavailable'; why: Unavailable }
  | { kind: 'passcode'; shareToken: string; title: string; wrong: boolean; lockedFor?: number; brand?: Brand | null }
  | EmailGateModel
  | CodeGateModel
  | AgreementModel
  | { kind: 'redirect'; url: string }
  | { kind: 'document-missing'; title: string }
  | FileViewerModel
  | RoomViewerModel
  | WebViewerModel;

/**
 * What a reader sees as the link's title (docs/links.md): its public title; else, once the document
 * is open, the file's name, or a web page's host; never the link's name, which is the team's own.
 * Before a gate is passed (and while the document is missing) the file's name is not told either.
 */
export function readerTitle(link: Pick<LinkRow, 'title' | 'type' | 'website'>, fileName?: string): string {
  if (link.title !== null && link.title !== '') return link.title;
  if (link.type === 2 || link.type === 3) {
    try {
      return new URL(link.website ?? '').host || SHARED_PAGE;
    } catch {
      return SHARED_PAGE;
    }
  }
  // A file link's file, a room link's room, once the reader is let in.
  return fileName ?? (link.type === 4 ? SHARED_DOCUMENTS : SHARED_DOCUMENT);
}
const SHARED_DOCUMENT = 'Shared document';
const SHARED_PAGE = 'Shared page';
const SHARED_DOCUMENTS = 'Shared documents';
