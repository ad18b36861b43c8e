import { Type } from '@sinclair/typebox';
import { NullableString } from '../../http/schema-types.ts';

export const ImportPath = Type.Object({ appId: Type.String({ maxLength: 64 }), svcUserId: Type.String({ maxLength: 64 }) });
export const ImportItemPath = Type.Object({
  appId: Type.String({ maxLength: 64 }),
  svcUserId: Type.String({ maxLength: 64 }),
  importId: Type.String({ maxLength: 64 }),
});

export const ImportBody = Type.Object({
  file: Type.Optional(Type.String({ format: 'binary', description: 'the CSV (UTF-8, UTF-16 with its mark, or GBK/GB18030) or XLSX file' })),
  mapping: Type.Optional(
    Type.String({
      maxLength: 100000,
      description:
        'JSON object: a column (its header, or its number from 0) → the attribute it fills ("" ignores it); other columns are mapped from their headers',
    }),
  ),
  group_id: Type.Optional(Type.String({ maxLength: 64, description: 'the group of rows that name none' })),
  svc_user_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'owner of rows that name none (default: the acting member)' }),
  ),
  duplicate_policy: Type.Optional(
    Type.String({
      maxLength: 16,
      description: 'skip (default), update or merge: what a row whose unique attributes name a live customer does',
    }),
  ),
  dry_run: Type.Optional(Type.String({ maxLength: 8, description: 'true: validate and count, write no customer' })),
  encoding: Type.Optional(Type.String({ maxLength: 32, description: 'the CSV encoding (default: detected)' })),
});

export const ImportJob = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'queued, running, done or failed' }),
  total: Type.Integer({ description: 'data rows of the file (0 until counted)' }),
  processed: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  dryRun: Type.Boolean(),
  policy: Type.String(),
  fileName: Type.String(),
  mapping: Type.Array(Type.Object({ column: Type.String(), attribute: Type.String() })),
  error: NullableString,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const FormatQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('xlsx')], { description: 'csv (default) or xlsx' })),
});

export const ExportQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('xlsx')], { description: 'csv (default) or xlsx' })),
  keyword: Type.Optional(
    Type.String({ maxLength: 64, description: 'as the customer list: name, company, mobile number or e-mail contains it' }),
  ),
  group_id: Type.Optional(Type.String({ maxLength: 64, description: "as the customer list: one group ('' for no group)" })),
  svc_user_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: "one member's customers (Master/Admin; a Sales member may name only themselves)",
    }),
  ),
});

export const PreviewBody = Type.Object({
  file: Type.Optional(
    Type.String({ format: 'binary', description: "the file, or a CSV's first 64 KiB (enough for its header, encoding and first rows)" }),
  ),
  encoding: Type.Optional(Type.String({ maxLength: 32, description: 'the CSV encoding (default: detected)' })),
});

export const ImportPreview = Type.Object({
  format: Type.String({ description: 'csv or xlsx' }),
  encoding: Type.String({ description: "the CSV's encoding as detected or given (utf8 for XLSX)" }),
  mapping: Type.Array(
    Type.Object({ column: Type.String(), attribute: Type.String({ description: 'the attribute the import would fill ("" for none)' }) }),
    { description: "each column of the header, in order, with the attribute an import's automatic mapping gives it" },
  ),
  rows: Type.Array(Type.Array(Type.String()), { description: 'the first data rows (up to 3), as read' }),
});

export const RecentImportsQuery = Type.Object({
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'how many (default 20)' })),
});
