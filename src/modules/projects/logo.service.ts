import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { MIME_TYPES, imageSizeOfFile, sniffFileKind } from '../../lib/file-kinds.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { type LogoRow, logoRepository as repo } from './logo.repository.ts';

/** The largest logo accepted, in bytes: an image a phone loads at once over a slow line. */
export const LOGO_MAX_BYTES = 512 * 1024;
/** The largest logo accepted, in pixels on either side. */
export const LOGO_MAX_SIDE = 4096;
/** The multipart field of the upload. */
export const LOGO_FIELD = 'file';

/** A file part as the upload route received it (src/http/upload.ts). */
export interface LogoUpload {
  path: string;
  size: number;
  tooLarge: boolean;
}

/** What the console shows of the project's logo. */
export interface LogoResponse {
  /** The logo's public address (`{PUBLIC_BASE_URL}/logo/{app-id}/{token}`), or null when the project has none. */
  url: string | null;
  contentType: string | null;
  size: number | null;
}

/** The public address of a project's logo: not guessable, new with each upload (served immutable). */
export const logoPath = (appId: string, token: string) => `/logo/${encodeURIComponent(appId)}/${token}`;
const keyOf = (appId: string, token: string) => `${appId}/logo/${token}`;
const invalidLogo = (detail: string) => failure('invalid_file', detail);

/**
 * A project's logo (docs/projects.md, "Logo"): a PNG or JPEG of at most 512 KB and 4096 pixels a side,
 * judged by its bytes. SVG is refused: a script inside it would run wherever it is opened as a page.
 * The public viewer shows it beside the project's name and as its icon; the project's `iconURL` is it.
 */
export function createProjectLogos(ctx: AppContext, deps: { storage: FileStorage; audit: AuditRecorder }) {
  const { storage, audit } = deps;
  const { clock } = ctx;
  const db = ctx.database.db;
  const base = ctx.config.publicBaseUrl;
  const answer = (row: LogoRow | undefined): LogoResponse =>
    row === undefined
      ? { url: null, contentType: null, size: null }
      : { url: `${base}${logoPath(row.app_id, row.token)}`, contentType: row.content_type, size: Number(row.size) };

  async function check(file: LogoUpload | undefined) {
    if (file === undefined) throw invalidLogo(`Send the image as the multipart/form-data field \`${LOGO_FIELD}\``);
    if (file.tooLarge) throw invalidLogo(`The logo is larger than ${LOGO_MAX_BYTES} bytes`);
    if (file.size === 0) throw invalidLogo('The file is empty');
    const kind = await sniffFileKind(file.path);
    if (kind !== 'png' && kind !== 'jpeg') throw invalidLogo('The logo is not a PNG or JPEG image (judged by its content, not its name)');
    const size = await imageSizeOfFile(file.path, kind);
    if (size === null || size.width < 1 || size.height < 1) throw invalidLogo('The image cannot be read');
    if (size.width > LOGO_MAX_SIDE || size.height > LOGO_MAX_SIDE)
      throw invalidLogo(`The logo is larger than ${LOGO_MAX_SIDE} pixels a side`);
    return { contentType: MIME_TYPES[kind], ...size };
  }

  return {
    /** The upload route's spec: one file, received in the storage's incoming directory. */
    upload: { field: LOGO_FIELD, dir: storage.incomingDir, maxBytes: LOGO_MAX_BYTES },

    async get(actor: Actor): Promise<LogoResponse> {
      return answer(await repo.logo(ctx.database.reader, actor.app.id));
    },

    /** Makes the image the project's logo (Master and Admin), replacing the one before. */
    async set(actor: Actor, file: LogoUpload | undefined): Promise<LogoResponse> {
      const image = await check(file);
      const appId = actor.app.id;
      const row: LogoRow = {
        app_id: appId,
        token: randomToken(16),
        content_type: image.contentType,
        size: (file as LogoUpload).size,
        updated_at: clock.now(),
      };
      await storage.putFile(keyOf(appId, row.token), (file as LogoUpload).path);
      const icon = { url: `${base}${logoPath(appId, row.token)}`, width: image.width, height: image.height };
      const before = await db.transaction().execute(async (trx) => {
        const replaced = await repo.replace(trx, row, icon);
        await audit(trx, { appId, actorId: actor.userId, action: 'project.logo_set', targetType: 'project', targetId: appId });
        return replaced;
      });
      if (before !== undefined) await storage.removePrefix(keyOf(appId, before.token));
      return answer(row);
    },

    /** The project has no logo any more (Master and Admin); nothing to remove is not an error. */
    async remove(actor: Actor): Promise<LogoResponse> {
      const appId = actor.app.id;
      const before = await db.transaction().execute(async (trx) => {
        const removed = await repo.remove(trx, appId, clock.now());
        if (removed !== undefined)
          await audit(trx, { appId, actorId: actor.userId, action: 'project.logo_remove', targetType: 'project', targetId: appId });
        return removed;
      });
      if (before !== undefined) await storage.removePrefix(keyOf(appId, before.token));
      return answer(undefined);
    },

    /** The logo at its public address, or null (an unknown project or token: the same 404). */
    async image(appId: string, token: string): Promise<{ bytes: Buffer; contentType: string } | null> {
      if (appId.length > 64 || !/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
      const row = await repo.logo(ctx.database.reader, appId);
      if (row === undefined || row.token !== token) return null;
      const bytes = await storage.read(keyOf(appId, token));
      return bytes === null ? null : { bytes, contentType: row.content_type };
    },
  };
}

export type ProjectLogos = ReturnType<typeof createProjectLogos>;
