import { Type } from '@sinclair/typebox';
import { NullableString } from '../../http/schema-types.ts';

export const FileParams = Type.Object({ appId: Type.String({ maxLength: 64 }), fileId: Type.String({ maxLength: 64 }) });

export const PageParams = Type.Object({
  appId: Type.String({ maxLength: 64 }),
  fileId: Type.String({ maxLength: 64 }),
  n: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'page number, from 1' }),
});

export const PageQuery = Type.Object({
  width: Type.Optional(
    Type.Unsafe<'desktop' | 'phone'>({
      type: 'string',
      enum: ['desktop', 'phone'],
      description: 'desktop (1600 px wide, the default) or phone (750 px)',
    }),
  ),
});

/** The multipart body of an upload: the file, and optionally the name to show it by. */
export const UploadBody = Type.Object({
  file: Type.Optional(Type.String({ format: 'binary', description: 'the PDF, PNG or JPEG (its type is read from its content)' })),
  name: Type.Optional(Type.String({ maxLength: 1000, description: "the name to show; default: the uploaded file's name" })),
});

export const File = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: Type.String(),
  size: Type.Integer({ description: 'bytes of the current version' }),
  mimeType: Type.String({ description: 'application/pdf, image/png or image/jpeg' }),
  pageCount: Type.Integer(),
  status: Type.Unsafe<'processing' | 'ready' | 'failed'>({ type: 'string', enum: ['processing', 'ready', 'failed'] }),
  renderedPages: Type.Integer({ description: 'pages rendered so far; they are rendered in order' }),
  version: Type.Integer({ description: '1, then one more with each new version' }),
  failure: { ...NullableString, description: 'why rendering failed (status failed), else null' },
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
