import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Nullable } from '../../http/schema-types.ts';

const S = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));
const Flag = (description: string) => Type.Optional(Type.Integer({ enum: [0, 1], description }));
const AccessList = (description: string) =>
  Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }), Type.String({ maxLength: 100000 })], { description }),
  );

/** The fields of a link (create: `name` required; edit: what is given changes). */
export const LinkBody = Type.Object({
  name: S(1000, 'the link name (required on create)'),
  type: Type.Optional(
    Type.Integer({
      enum: [1, 2, 3, 4],
      description: '1 file (file_id), 2 web page (website), 3 redirect (website), 4 data room (room_id); default 1',
    }),
  ),
  file_id: S(64, 'the file a file link shows (a file of the project; its new versions keep showing)'),
  room_id: S(64, 'the data room a room link (type 4) shows: a room of the project (Sales: one of their own)'),
  website: S(4096, 'http(s) address of a web page or redirect link (never fetched by the server)'),
  customer_id: S(64, "a customer of the project: the link is directed to it (Sales: one of their own); '' on edit undirects it"),
  remark: S(10000, 'a remark'),
  title: S(
    1000,
    "what the viewer shows its readers, 1–200 characters (default: the file's name, or the web page's host); '' on edit: the default",
  ),
  form_position: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100000, description: 'the form is shown after this page; 0 or absent: no form' }),
  ),
  form_fields: S(
    500,
    'comma list of the form fields: name, email, phone, company, title, website, interested (default name,email,phone,company)',
  ),
  utm_source: S(1000, 'utm value'),
  utm_medium: S(1000, 'utm value'),
  utm_campaign: S(1000, 'utm value'),
  utm_content: S(1000, 'utm value'),
  utm_term: S(1000, 'utm value'),
  tags: Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }), Type.String({ maxLength: 10000 })], {
      description: 'interest tags: an array, or a comma list (at most 50, each at most 64 characters)',
    }),
  ),
  expires_at: S(64, "yyyy-MM-dd HH:mm:ss: the link stops opening then (410); '' on edit: never"),
  passcode: S(1000, "4–64 characters the viewer asks for (stored as a scrypt hash); '' on edit removes it"),
  allow_download: Flag('1: the viewer offers the original file for download (default 0)'),
  email_gate: Flag('1: the viewer asks for an e-mail address before the first page (default 0)'),
  embed: Flag('1: a web page link is shown in a frame; 0: the viewer records the view and redirects (default 0)'),
  email_verify: Flag(
    '1: the e-mail gate mails a six-digit code to the address given and opens on it (turns the e-mail gate on; needs SMTP_URL). Default 0',
  ),
  allow_list: AccessList(
    "addresses and domains the e-mail gate lets through, none other (turns the e-mail gate on): bob@acme.com, acme.com or @acme.com (that domain), *.acme.com (its subdomains); an array or a comma list, at most 200; '' or [] removes it",
  ),
  deny_list: AccessList(
    "addresses and domains the e-mail gate refuses, as allow_list (turns the e-mail gate on; it wins over allow_list); '' or [] removes it",
  ),
  agreement: S(
    100000,
    "text the reader accepts before the document (an NDA), at most 20,000 characters; each change of its text is a new version; '' removes it",
  ),
  watermark: Flag(
    "1: every page image the viewer serves carries the reader's e-mail address (or visitor id), the time and their address, drawn in, and the download is a PDF of those images (default 0)",
  ),
  with_url: Type.Optional(
    Type.Integer({ enum: [0, 1], description: '1 adds the full url to the answer (a form field or the query string, as every parameter)' }),
  ),
});

export const WithUrlQuery = Type.Object({
  with_url: Type.Optional(Type.Integer({ enum: [0, 1], description: '1 adds the full url' })),
});

export const AppLinkParams = Type.Object({ appId: Type.String({ maxLength: 64 }), linkId: Type.String({ maxLength: 64 }) });

export const AcceptancesQuery = Type.Object({
  ...PagingQuery,
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'json (default): a page; csv: every acceptance' }),
  ),
});

/** An acceptance of a link's agreement. */
export const Acceptance = Type.Object({
  id: Type.String(),
  linkId: Type.String(),
  version: Type.Integer({ description: "the agreement's version accepted" }),
  textHash: Type.String({ description: 'SHA-256 (hex) of the text accepted' }),
  email: Nullable(
    Type.String({ description: "the address the reader gave at the link's e-mail gate (verified when the link asks a code)" }),
  ),
  name: Nullable(Type.String({ description: 'the name the reader gave' })),
  visitorId: Type.String({ description: "the reader's visitor id (docs/identity.md)" }),
  viewId: Nullable(Type.String({ description: 'the view the reader read the document in after accepting; null: not opened yet' })),
  acceptedAt: Type.String({ description: 'yyyy-MM-dd HH:mm:ss' }),
  ip: Nullable(Type.String({ description: 'the client address, as the server stores addresses (truncated by default)' })),
  userAgent: Nullable(Type.String()),
});

export const AnalyticsQuery = Type.Object({
  version: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: "one version of the link's file (or of file_id's): its figures and viewers only",
    }),
  ),
  file_id: Type.Optional(
    Type.String({ maxLength: 64, description: "with version: a file the link showed before (default: the link's file)" }),
  ),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: every viewer as a CSV file (default json)' }),
  ),
  ...PagingQuery,
});

const Share = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const PageFigures = Type.Object({
  page: Type.Integer({ description: 'from 1' }),
  views: Type.Integer({ description: 'views that read the page' }),
  avgSeconds: Type.Number({ description: 'average time on the page over the views that read it (0.1 s)' }),
  reach: Share('share of the version’s views that read the page'),
});

export const VersionFigures = Type.Object({
  fileId: Type.String(),
  fileName: Nullable(Type.String({ description: 'the file’s name now' })),
  version: Type.Integer({ description: 'the file’s version the views opened' }),
  current: Type.Boolean({ description: 'the file’s current version (its page images can be shown)' }),
  pageCount: Type.Integer({ description: 'the version’s pages (an earlier version’s: as many as it had when its views opened it)' }),
  views: Type.Integer(),
  uniqueViewers: Type.Integer({ description: 'distinct viewers: visitors, or the customers they became' }),
  completion: Share('mean over the views of the distinct pages each read ÷ the pages'),
  medianSeconds: Type.Number({ description: 'median view time (0.1 s)' }),
  pages: Type.Array(PageFigures, { description: 'every page, unread ones with 0' }),
  dropOffPage: Nullable(
    Type.Object(
      { page: Type.Integer(), views: Type.Integer(), share: Share('share of the version’s views that ended there') },
      { description: 'the page before the last after which the most views ended; null when none ended before the last page' },
    ),
  ),
});

export const ViewerFigures = Type.Object({
  viewerId: Type.String({ description: 'the visitor, or the customer it became' }),
  customerId: Nullable(Type.String()),
  viewerName: Nullable(Type.String()),
  views: Type.Integer(),
  completion: Nullable(Share('mean over their views of the pages read ÷ the version’s pages; null without a view of a version')),
  seconds: Type.Number({ description: 'their time reading, all views (0.1 s)' }),
  lastViewedAt: Type.String({ description: 'yyyy-MM-dd HH:mm:ss' }),
});

export const LinkAnalytics = Type.Object({
  linkId: Type.String(),
  views: Type.Integer({ description: 'the link’s views, of every version (and ingested ones)' }),
  uniqueViewers: Type.Integer(),
  versions: Type.Array(VersionFigures, {
    description: 'each version with views, and the link’s file’s current one: the link’s file first, newest version first',
  }),
  viewers: Type.Array(ViewerFigures, { description: 'a page of the viewers (start_index, count), the one who viewed last first' }),
});
