import { Type } from '@sinclair/typebox';

const S = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));
const Flag = (description: string) => Type.Optional(Type.Integer({ enum: [0, 1], description }));

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
  with_url: Type.Optional(
    Type.Integer({ enum: [0, 1], description: '1 adds the full url to the answer (a form field or the query string, as every parameter)' }),
  ),
});

export const WithUrlQuery = Type.Object({
  with_url: Type.Optional(Type.Integer({ enum: [0, 1], description: '1 adds the full url' })),
});

export const AppLinkParams = Type.Object({ appId: Type.String({ maxLength: 64 }), linkId: Type.String({ maxLength: 64 }) });
