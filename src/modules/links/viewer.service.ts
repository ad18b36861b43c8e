import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { AppError, publicFailure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { verifyPassword } from '../../lib/secrets.ts';
import { watermarkText } from '../../lib/watermark-text.ts';
import type { FileStamps, FileViewer, PageImage, PageWidth, StampedImage } from '../files/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import { type LinkForms, readFormFields } from './form.service.ts';
import { type LinkGatePosts, honeypotFilled } from './gate.service.ts';
import { type LinkGates, nextGate } from './gates.ts';
import { type LinkRow, formFieldsOf } from './mapper.ts';
import { linksRepository as repo } from './repository.ts';
import type { LinkSigning } from './signing.ts';
import type { RoomViewer } from './room-viewer.ts';
import type { ViewerFiles } from './viewer-files.ts';
import { type Brand, DEFAULT_FORM_FIELDS, type ViewerAnswer, type VisitorRequest, readerTitle } from './viewer-model.ts';
import type { LinkViews } from './views.service.ts';

/** The parameter a web page or redirect link adds to a target on the project's site origins. */
export const HANDOFF_PARAM = 'rapport_lv';

/** Who asks for a link's page image or download, as a watermark names them: the visitor cookie's id and the client's address. */
export interface Reader {
  visitorId: string;
  ip: string;
}

/** A page image asked of the viewer: the link's share token, its unlock cookie, the page (from 1), its width, who asks. */
export interface PageImageRequest {
  shareToken: string;
  unlock: string | undefined;
  n: number;
  width: PageWidth;
  ifNoneMatch?: string | undefined;
  reader: Reader;
  /** The project whose share domain the request came to (another project's link: null). */
  within?: string | null;
  /** A room link's document (`/l/{token}/doc/{file-id}/page/{n}`); none: a file link's own file. */
  fileId?: string | undefined;
}

/** A link's download: the original file, or (a link with a watermark) a PDF of its watermarked pages written as it is sent. */
export type Download =
  | { kind: 'original'; name: string; contentType: string; size: number; body: Readable }
  | { kind: 'watermarked'; name: string; body: Readable }
  /** The file's pages are still being rendered: a watermarked download waits for them. */
  | { kind: 'preparing' };

export interface LinkViewerDeps {
  files: Pick<FileViewer, 'viewerPage' | 'viewerOriginal'>;
  stamps: Pick<FileStamps, 'viewerStampedPage' | 'viewerStampedPdf'>;
  /** The project's site origins: a link to them carries the visitor's hand-off (docs/site-tracking.md). */
  projects: Pick<ProjectsService, 'siteOrigins' | 'brand' | 'region'>;
  /** The customer a campaign's signed click parameter names (the campaigns service's), or null. */
  mailClick?: ((appId: string, token: string) => Promise<{ customerId: string } | null>) | undefined;
  gates: LinkGates;
  signing: LinkSigning;
  views: LinkViews;
  forms: LinkForms;
  /** The e-mail gate's and the agreement's forms, and their pages. */
  gatePosts: LinkGatePosts;
  viewerFile: ViewerFiles;
  /** A room link's page and documents (room-viewer.ts). */
  roomViewer: Pick<RoomViewer, 'page' | 'document' | 'roomTitle'>;
}

/**
 * The public viewer (docs/links.md), for a link's recipients in their browser: the link's page (a
 * file's rendered pages, a web page, a redirect), its page images and download, the passcode and
 * e-mail gates, the form, and the hand-off to the project's site. Views are recorded by the view
 * recording service (views.service.ts); forms are written by form.service.ts.
 */
export function createLinkViewer(ctx: AppContext, deps: LinkViewerDeps) {
  const { files, stamps, gates, signing, views, forms, viewerFile } = deps;
  const { clock, logger } = ctx;
  const base = ctx.config.publicBaseUrl;

  /**
   * A web page or redirect link's target, with the visitor's signed hand-off when the target is on
   * the project's site origins: the site snippet sends it back, and the visitor's tie to a customer
   * (a form of the link) then reaches the site visitor too (docs/identity.md, "Site visitors").
   */
  async function withHandoff(link: LinkRow, target: string, visitorId: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return target;
    }
    if (!(await deps.projects.siteOrigins(link.app_id)).includes(url.origin)) return target;
    url.searchParams.set(HANDOFF_PARAM, await signing.handoffToken(link.app_id, visitorId));
    return url.href;
  }

  /** Opened from a campaign's tracked link: the mail's recipient is viewing, as a form would have told. */
  async function tieMailClick(link: LinkRow, visitor: VisitorRequest, click: string): Promise<void> {
    if (deps.mailClick === undefined) return;
    const known = await deps.mailClick(link.app_id, click);
    const person = await gates.counts(link, visitor);
    if (known !== null && person) await repo.tieVisitor(ctx.database.db, link.app_id, visitor.visitorId, known.customerId, clock.now());
  }

  /** The page of an open file or web page link, with a view token unless a member opens it. */
  async function pageOf(link: LinkRow, shareToken: string, visitor: VisitorRequest, brand: Brand | null): Promise<ViewerAnswer> {
    const title = readerTitle(link);
    const token = (await gates.isMember(link, visitor.userId)) ? null : await signing.viewToken(link.id, timeOrderedUuid());
    const formFields = formFieldsOf(link, DEFAULT_FORM_FIELDS);
    const formPosition = link.form_position;
    if (link.type === 4)
      return deps.roomViewer.page(link, { shareToken, viewToken: token, brand, title: (name) => readerTitle(link, name) });
    if (link.type === 2) {
      // A framed page is another site's third-party frame: no hand-off there.
      const website = link.embed === 1 ? (link.website ?? base) : await withHandoff(link, link.website ?? base, visitor.visitorId);
      return { kind: 'web', shareToken, title, viewToken: token, website, embed: link.embed === 1, formPosition, formFields, brand };
    }
    const file = link.file1 === null ? null : await viewerFile(link.app_id, link.file1);
    if (file === null || file.status === 'failed' || file.pages.length === 0) return { kind: 'document-missing', title };
    const download = link.allow_download === 1;
    const fileTitle = readerTitle(link, file.name);
    const watermark = link.watermark === 1;
    return { kind: 'file', shareToken, title: fileTitle, viewToken: token, file, formPosition, formFields, download, watermark, brand };
  }

  /** A document of a room link's room, in the file viewer (docs/rooms.md); a file the room does not hold is the 404. */
  async function documentOf(link: LinkRow, shareToken: string, visitor: VisitorRequest, o: { brand: Brand | null; fileId: string }) {
    const file = await deps.roomViewer.document(link, o.fileId);
    const roomTitle = file === null ? null : await deps.roomViewer.roomTitle(link, { title: (name) => readerTitle(link, name) });
    if (file === null || roomTitle === null) return { kind: 'unavailable', why: 'missing' } as const;
    if (file.status === 'failed' || file.pages.length === 0) return { kind: 'document-missing', title: file.name } as const;
    const token = (await gates.isMember(link, visitor.userId)) ? null : await signing.viewToken(link.id, timeOrderedUuid());
    return {
      kind: 'file',
      shareToken,
      title: file.name,
      viewToken: token,
      file,
      formPosition: link.form_position,
      formFields: formFieldsOf(link, DEFAULT_FORM_FIELDS),
      download: link.allow_download === 1,
      watermark: link.watermark === 1,
      brand: o.brand,
      room: { title: roomTitle, fileId: file.id },
    } as const;
  }

  /** Counts a wrong passcode of the link: null, or the lockout it started (logged, for the owner to hear of it). */
  async function passcodeFailed(link: LinkRow, now: number): Promise<{ lockedFor: number } | null> {
    const { linkPasscodeFailures: max, linkPasscodeLockoutSeconds: seconds } = ctx.config;
    const until = await repo.passcodeFailed(ctx.database.db, link.app_id, link.id, now, seconds * 1000, max, now + seconds * 1000);
    if (until === null || until <= now) return null;
    logger.warn(
      { appId: link.app_id, linkId: link.id, failures: max, until: clock.format(until) },
      'links: too many wrong passcodes for the link; its passcode is refused until the lockout ends or a new one is set',
    );
    return { lockedFor: Math.ceil((until - now) / 1000) };
  }

  /**
   * The watermark's text for a reader of the link (docs/links.md, "Watermarks and deterrence"): the
   * address the e-mail gate was passed with, else `visitor` and the first 8 characters of the visitor
   * cookie (the view log's viewerId starts with them); the time; the client's address.
   */
  async function watermarkOf(link: LinkRow, unlock: string | undefined, reader: Reader): Promise<string> {
    const unlocked = await gates.unlockedOf(link, unlock);
    const who = unlocked.gate && unlocked.email !== undefined ? unlocked.email : `visitor ${reader.visitorId.slice(0, 8)}`;
    return watermarkText({ who, at: clock.now(), address: reader.ip });
  }

  /**
   * The open, unlocked link of a share token and the file whose pages or download are asked: a file
   * link's own file, or (`fileId`) a document its room holds (room-viewer.ts); null for anything else.
   */
  async function unlockedDocument(
    shareToken: string,
    unlock: string | undefined,
    o: { within: string | null | undefined; fileId: string | undefined },
  ): Promise<{ link: LinkRow; fileId: string } | null> {
    const found = await gates.linkOf(shareToken, o.within);
    if (!('link' in found)) return null;
    const link = found.link;
    let fileId: string;
    if (o.fileId === undefined) {
      if (link.type !== 1 || link.file1 === null) return null;
      fileId = link.file1;
    } else {
      if (link.type !== 4 || (await deps.roomViewer.document(link, o.fileId)) === null) return null;
      fileId = o.fileId;
    }
    if (await gates.locked(link, unlock)) return null;
    return { link, fileId };
  }

  return {
    /** `/link/{link-id}?share_token=`: the viewer's address when the id and token are one link's, else null. */
    async legacyAddress(linkId: string, shareToken: string | undefined, within?: string | null): Promise<string | null> {
      if (shareToken === undefined) return null;
      const found = await gates.linkOf(shareToken, within);
      if (!('link' in found) && found.why === 'missing') return null;
      const link = 'link' in found ? found.link : await gates.anyLinkOf(shareToken, within);
      return link && link.id === linkId ? `/l/${encodeURIComponent(shareToken)}` : null;
    },

    /**
     * The viewer's answer to `GET /l/{shareToken}`: a gate, the page of a file or web page link,
     * a redirect link's target (the visit recorded, unless a bot, a member or a HEAD request),
     * or why the link does not open. Nothing is written for file and web pages: their view starts
     * with the page's `open` beacon. `doc`: a document of a room link (`/l/{token}/doc/{file-id}`).
     */
    async viewer(shareToken: string, visitor: VisitorRequest, head: boolean, doc?: string): Promise<ViewerAnswer> {
      const found = await gates.linkOf(shareToken, visitor.within);
      if (!('link' in found)) return { kind: 'unavailable', why: found.why };
      const link = found.link;
      const title = readerTitle(link);
      const unlocked = await gates.unlockedOf(link, visitor.unlock);
      const brand = await deps.projects.brand(link.app_id);
      const gate = nextGate(link, unlocked, clock.now());
      if (gate !== null) return deps.gatePosts.gatePage(link, gate, unlocked, { shareToken, title, brand });
      if (visitor.mailClick !== undefined && !head) await tieMailClick(link, visitor, visitor.mailClick);
      if (doc !== undefined) return documentOf(link, shareToken, visitor, { brand, fileId: doc });
      if (link.type === 3) {
        if (!head && (await gates.counts(link, visitor))) await views.visit(link, visitor);
        return { kind: 'redirect', url: await withHandoff(link, link.website ?? base, visitor.visitorId) };
      }
      return pageOf(link, shareToken, visitor, brand);
    },

    /**
     * A page image of an open file link, or of a document of an open room link (gates passed), with
     * the reader's watermark drawn in when the link has one (`stamped`); null for anything else (the
     * same 404). Too many watermarks being drawn
     * is `overloaded`.
     */
    async pageImage(req: PageImageRequest): Promise<PageImage | (StampedImage & { stamped: true }) | null> {
      const asked = await unlockedDocument(req.shareToken, req.unlock, { within: req.within, fileId: req.fileId });
      if (asked === null) return null;
      const { link, fileId } = asked;
      const page = { fileId, n: req.n, width: req.width };
      try {
        if (link.watermark !== 1) return await files.viewerPage(link.app_id, { ...page, ifNoneMatch: req.ifNoneMatch });
        const text = await watermarkOf(link, req.unlock, req.reader);
        return { stamped: true, ...(await stamps.viewerStampedPage(link.app_id, { ...page, text })) };
      } catch (err) {
        if (err instanceof AppError && err.code !== 'overloaded') return null;
        throw err;
      }
    },

    /**
     * The download of a link that allows it (gates passed), of its file or (`fileId`) of its room's
     * document: the original file, or with a watermark a PDF of the pages with the reader's watermark;
     * null otherwise. Too many watermarked downloads
     * under way is `overloaded`.
     */
    async download(
      shareToken: string,
      req: { unlock: string | undefined; reader: Reader; within?: string | null; fileId?: string | undefined },
    ): Promise<Download | null> {
      const { unlock, reader } = req;
      const asked = await unlockedDocument(shareToken, unlock, { within: req.within, fileId: req.fileId });
      if (asked === null || asked.link.allow_download !== 1) return null;
      const { link, fileId } = asked;
      if (link.watermark !== 1) {
        const original = await files.viewerOriginal(link.app_id, fileId);
        return original === null ? null : { kind: 'original', ...original };
      }
      const text = await watermarkOf(link, unlock, reader);
      try {
        const pdf = await stamps.viewerStampedPdf(link.app_id, fileId, text);
        return pdf === null ? null : { kind: 'watermarked', ...pdf };
      } catch (err) {
        if (err instanceof AppError && err.code === 'page_not_ready') return { kind: 'preparing' };
        throw err;
      }
    },

    /**
     * A passcode given on the gate page: the unlock cookie when right, null when wrong; undefined when
     * the link does not open. `lockedFor` (seconds): the link's passcode is locked after too many wrong
     * ones from anywhere (LINK_PASSCODE_FAILURES in LINK_PASSCODE_LOCKOUT), the right one
     * refused too, unchecked, until the lockout ends or the owner sets a new passcode.
     */
    async unlock(
      shareToken: string,
      unlock: string | undefined,
      passcode: unknown,
      within?: string | null,
    ): Promise<{ cookie: string } | { lockedFor: number } | null | undefined> {
      const found = await gates.linkOf(shareToken, within);
      if (!('link' in found)) return undefined;
      const link = found.link;
      if (link.passcode_hash === null) return { cookie: await signing.unlockCookie(link, await gates.unlockedOf(link, unlock)) };
      const now = clock.now();
      const lockedUntil = await repo.passcodeLockedUntil(ctx.database.db, link.app_id, link.id);
      if (lockedUntil !== null && lockedUntil > now) return { lockedFor: Math.ceil((lockedUntil - now) / 1000) };
      if (typeof passcode !== 'string' || passcode.length > 256 || !(await verifyPassword(passcode, link.passcode_hash))) {
        return passcodeFailed(link, now);
      }
      const before = await gates.unlockedOf(link, unlock);
      return { cookie: await signing.unlockCookie(link, { ...before, passcode: true }) };
    },

    /** The e-mail gate's address, its code, the agreement (gate.service.ts). */
    passGate: deps.gatePosts.passGate,
    verify: deps.gatePosts.verify,
    agree: deps.gatePosts.agree,

    /**
     * The link's form (docs/links.md, "Who is viewing"): a clue; the customer matched by mobile
     * number or e-mail, or made (createWay 5, the link's creator its owner); the visitor tied to it
     * and its earlier anonymous views joined to it. The answer is the same whether a customer was
     * matched, made or neither; a filled honeypot (`url`) is answered alike and writes nothing.
     */
    async form(shareToken: string, body: Record<string, unknown>, visitor: VisitorRequest): Promise<true> {
      const found = await gates.linkOf(shareToken, visitor.within);
      if (!('link' in found)) throw publicFailure('link_unavailable', 'The link does not open (unknown, disabled or expired)');
      const link = found.link;
      if (await gates.locked(link, visitor.unlock)) {
        throw publicFailure('link_unavailable', 'The link is locked: give its passcode or e-mail address, or accept its agreement, first');
      }
      const fields = readFormFields(link, body, { region: await deps.projects.region(link.app_id) });
      if (honeypotFilled(body)) return true;
      if (await gates.isMember(link, visitor.userId)) return true;
      let viewId: string | null = null;
      if (typeof body.token === 'string') {
        const v = await signing.viewOf(body.token, link.id);
        if (v !== null && (await repo.view(ctx.database.reader, link.app_id, v))?.view.link_id === link.id) viewId = v;
      }
      await forms.submit(link, visitor, { fields, formType: '1', viewId });
      return true;
    },

    /**
     * The customer a site visitor's hand-off (`rapport_lv`, from a link to the project's site) names
     * in this project: the customer its link visitor is tied to by a form, or null (forged, another
     * project's, too old, or a visitor not tied yet).
     */
    async handedOffCustomer(appId: string, token: string): Promise<string | null> {
      const visitorId = await signing.handedOffVisitor(appId, token);
      return visitorId === null ? null : repo.visitorCustomer(ctx.database.reader, appId, visitorId);
    },
  };
}

export type LinkViewer = ReturnType<typeof createLinkViewer>;
