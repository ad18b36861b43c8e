import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type Database, isUniqueViolation } from '../../db/index.ts';
import { AppError, failure, fieldFailure, publicFailure } from '../../http/errors.ts';
import { isEmail, isPhone } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { hashPassword, randomToken, verifyPassword } from '../../lib/secrets.ts';
import { type SigningKey, deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomersService, ViewerCustomer } from '../customers/service.ts';
import type { FilesService, PageImage, PageWidth, ViewerFile } from '../files/service.ts';
import type { HistoriesService } from '../histories/service.ts';
import type { IngestService, ViewerWrite } from '../ingest/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import { type Beacon, BeaconError, type DwellState, type PageDwell, applyDwell, parseBeacon } from './beacons.ts';
import { type FormField, type LinkRow, type SilentView, type Unavailable, type ViewRow, formFieldsOf, tagsOf } from './mapper.ts';
import { type OwnerNotifier, createOwnerNotifier } from './notifier.ts';
import { linksRepository as repo } from './repository.ts';

/** The form's fields when a link names none (as the Link record shows them). */
export const DEFAULT_FORM_FIELDS: readonly FormField[] = ['name', 'email', 'phone', 'company'];
/** A reload within this time continues the visitor's last view of the link instead of starting one. */
export const CONTINUE_VIEW_MS = 30 * 60 * 1000;
/** A view without a beacon for this long is closed (its leave recorded) by the sweep. */
export const SILENT_VIEW_MS = 30 * 1000;
/** How long the viewer keeps what it read of a file (its pages and their sizes) before reading it again. */
const FILE_CACHE_MS = 5000;
const FILE_CACHE_SIZE = 1000;
/** How often a server looks for silent views to close. */
/** How often the sweep job runs (the composition root defines it). */
export const SWEEP_EVERY_MS = 10_000;
/** How long a page's view token opens a view and carries its beacons. */
const VIEW_TOKEN_TTL_S = 24 * 3600;
/** How long an unlocked passcode or a passed e-mail gate lasts in the visitor's browser. */
export const UNLOCK_TTL_S = 30 * 24 * 3600;
/** How long a visitor hand-off to the project's site (`rapport_lv`) identifies the visitor there. */
const HANDOFF_TTL_S = 30 * 24 * 3600;
/** The parameter a web page or redirect link adds to a target on the project's site origins. */
export const HANDOFF_PARAM = 'rapport_lv';
/** Anonymous views a form joins to its customer at most (the visitor's newest in the project). */
const JOIN_MAX_VIEWS = 500;
/** Passcodes: 4 to 64 characters. */
const PASSCODE_RE = /^.{4,64}$/su;
const SHARE_TOKEN_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** The link fields of a create or an edit (snake_case, as the other endpoints take them). */
export interface LinkInput {
  name?: string | undefined;
  type?: number | undefined;
  file_id?: string | undefined;
  website?: string | undefined;
  customer_id?: string | undefined;
  remark?: string | undefined;
  form_position?: number | undefined;
  form_fields?: string | undefined;
  utm_source?: string | undefined;
  utm_medium?: string | undefined;
  utm_campaign?: string | undefined;
  utm_content?: string | undefined;
  utm_term?: string | undefined;
  tags?: string | string[] | undefined;
  expires_at?: string | undefined;
  passcode?: string | undefined;
  allow_download?: number | undefined;
  email_gate?: number | undefined;
  embed?: number | undefined;
}

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
}

export type ViewerAnswer =
  | { kind: 'unavailable'; why: Unavailable }
  | { kind: 'passcode'; shareToken: string; title: string; wrong: boolean; lockedFor?: number }
  | { kind: 'email'; shareToken: string; title: string; invalid: boolean }
  | { kind: 'redirect'; url: string }
  | { kind: 'document-missing'; title: string }
  | FileViewerModel
  | WebViewerModel;

/** What the unlock cookie proves for one link. */
interface Unlocked {
  passcode: boolean;
  gate: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** An absolute http(s) URL of at most 2048 characters, or null. */
function webAddress(value: string): string | null {
  if (value.length > 2048) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const passcodeFingerprint = (hash: string) => createHash('sha256').update(hash).digest('base64url').slice(0, 12);

/**
 * What other modules read of links, built from the context alone: campaigns use it, and the links
 * service is built after them (it takes campaigns' click resolver).
 */
export function createLinkReads(ctx: AppContext) {
  const db = ctx.database.db;
  return {
    /** The id of a project's link with one of these share tokens (a campaign's material), or null. */
    async idByShareToken(appId: string, tokens: string[]): Promise<string | null> {
      return (await repo.byShareTokens(db, appId, tokens))[0]?.id ?? null;
    },
  };
}

export type LinkReads = ReturnType<typeof createLinkReads>;

/**
 * Links made and shared from Rapport (docs/links.md): creating, editing and disabling them, and
 * the public viewer: its pages, the beacons that record a view, the form that tells who is viewing.
 * Views, their durations, behaviour records, counters and events are written through the ingestion
 * service's write path, as an integrator's records are.
 */
export function createLinksService(
  ctx: AppContext,
  deps: {
    access: AccessService;
    accounts: AccountsService;
    histories: HistoriesService;
    files: FilesService;
    customers: CustomersService;
    ingest: IngestService;
    /** The project's site origins: a link to them carries the visitor's hand-off (docs/site-tracking.md). */
    projects: ProjectsService;
    /** Owners' alerts; by default by SMTP when SMTP_URL is set. */
    notifier?: OwnerNotifier;
    /** The customer a campaign's signed click parameter names (the campaigns service's), or null. */
    mailClick?: (appId: string, token: string) => Promise<{ customerId: string } | null>;
  },
) {
  const { access, accounts, histories, files, customers, ingest } = deps;
  const notifier = deps.notifier ?? createOwnerNotifier(ctx.config.smtpUrl, ctx.config.smtpFrom, ctx.logger);
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;
  const { clock, logger } = ctx;
  const base = ctx.config.publicBaseUrl;

  // ---- Keys: derived from a secret the server makes once and keeps in the database, so that every
  // process and every server signs and checks alike. ----
  let keys: Promise<{ view: SigningKey; unlock: SigningKey; handoff: SigningKey }> | null = null;
  function signingKeys() {
    keys ??= accounts
      .serverSecret('viewer')
      .then((raw) => {
        return { view: deriveKey(raw, 'view tokens'), unlock: deriveKey(raw, 'link unlock'), handoff: deriveKey(raw, 'site handoff') };
      })
      .catch((err: unknown) => {
        keys = null;
        throw err;
      });
    return keys;
  }

  async function viewToken(linkId: string, viewId: string): Promise<string> {
    return signValue((await signingKeys()).view, { l: linkId, v: viewId, t: Math.floor(clock.now() / 1000) });
  }

  /** The view a token names for this link, or null (forged, another link's, too old). */
  async function viewOf(token: string, linkId: string): Promise<string | null> {
    const value = verifyValue((await signingKeys()).view, token) as { l?: unknown; v?: unknown; t?: unknown } | null;
    if (value === null || value.l !== linkId || typeof value.v !== 'string' || typeof value.t !== 'number') return null;
    if (clock.now() / 1000 - value.t > VIEW_TOKEN_TTL_S) return null;
    return value.v;
  }

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
    const token = signValue((await signingKeys()).handoff, { a: link.app_id, v: visitorId, t: Math.floor(clock.now() / 1000) });
    url.searchParams.set(HANDOFF_PARAM, token);
    return url.href;
  }

  async function unlockedOf(link: LinkRow, cookie: string | undefined): Promise<Unlocked> {
    if (cookie === undefined) return { passcode: false, gate: false };
    const value = verifyValue((await signingKeys()).unlock, cookie) as { l?: unknown; p?: unknown; g?: unknown; e?: unknown } | null;
    if (value === null || value.l !== link.id || typeof value.e !== 'number' || value.e < clock.now() / 1000) {
      return { passcode: false, gate: false };
    }
    return {
      passcode: link.passcode_hash !== null && value.p === passcodeFingerprint(link.passcode_hash),
      gate: value.g === 1,
    };
  }

  async function unlockCookie(link: LinkRow, unlocked: Unlocked): Promise<string> {
    return signValue((await signingKeys()).unlock, {
      l: link.id,
      ...(unlocked.passcode && link.passcode_hash !== null ? { p: passcodeFingerprint(link.passcode_hash) } : {}),
      ...(unlocked.gate ? { g: 1 } : {}),
      e: Math.floor(clock.now() / 1000) + UNLOCK_TTL_S,
    });
  }

  // ---- What the viewer shows of a file: read for every page and beacon, so kept a few seconds in
  // memory (a new version, or a page rendered meanwhile, shows within FILE_CACHE_MS). ----
  const fileCache = new Map<string, { until: number; file: Promise<ViewerFile | null> }>();
  function viewerFile(appId: string, fileId: string): Promise<ViewerFile | null> {
    const key = `${appId}\u0000${fileId}`;
    const now = clock.now();
    const hit = fileCache.get(key);
    if (hit && hit.until > now) return hit.file;
    if (fileCache.size >= FILE_CACHE_SIZE) fileCache.clear();
    const file = files.viewerFile(appId, fileId);
    // A file still rendering is not kept: its next page should show as soon as it is there.
    fileCache.set(key, { until: now + FILE_CACHE_MS, file });
    void file.then(
      (f) => {
        if (f === null || f.status !== 'ready') fileCache.delete(key);
      },
      () => fileCache.delete(key),
    );
    return file;
  }

  // ---- Links through the API. ----

  function parseTags(tags: LinkInput['tags']): string[] | null {
    if (tags === undefined) return null;
    const list = (Array.isArray(tags) ? tags : tags.split(',')).map((t) => t.trim()).filter((t) => t !== '');
    if (list.length > 50 || list.some((t) => t.length > 64))
      throw fieldFailure('tags', 'invalid', 'tags: at most 50, each at most 64 characters');
    return [...new Set(list)];
  }

  function parseFormFields(value: string | undefined): string | null | undefined {
    if (value === undefined) return undefined;
    if (value.trim() === '') return null;
    const list = [...new Set(value.split(',').map((f) => f.trim()))];
    const bad = list.find((f) => !(['name', 'email', 'phone', 'company', 'title', 'website', 'interested'] as string[]).includes(f));
    if (bad !== undefined) {
      throw fieldFailure(
        'form_fields',
        'invalid',
        `form_fields: ${bad.slice(0, 32)} is not one of name, email, phone, company, title, website, interested`,
      );
    }
    return JSON.stringify(list);
  }

  /** The link's columns from an input, over `current` (an edit) or from scratch (a create). */
  async function linkColumns(m: Membership, input: LinkInput, current: LinkRow | null) {
    const appId = m.app.id;
    const out: Partial<LinkRow> = {};
    if (input.name !== undefined || current === null) {
      const name = input.name?.trim() ?? '';
      if (name === '') throw failure('name_required', 'name is required');
      if (name.length > 255) throw failure('name_invalid', 'name must be at most 255 characters');
      out.name = name;
    }
    const type = input.type ?? current?.type ?? 1;
    out.type = type;
    const fileId = input.file_id !== undefined ? str(input.file_id) : (current?.file1 ?? null);
    const websiteIn = input.website !== undefined ? str(input.website) : (current?.website ?? null);
    if (type === 1) {
      if (fileId === null) throw fieldFailure('file_id', 'required', 'file_id is required for a file link (type 1)');
      if (input.file_id !== undefined || current === null || current.file1 !== fileId) {
        const file = await files.viewerFile(appId, fileId);
        if (file === null) throw failure('file_not_found', `file ${fileId.slice(0, 64)} is not a file of this project`);
        if (file.status === 'failed') throw failure('invalid_file', 'The file could not be rendered: upload a new version of it first');
      }
      out.file1 = fileId;
      out.website = null;
    } else {
      if (websiteIn === null)
        throw fieldFailure('website', 'required', 'website is required for a web page (type 2) or redirect (type 3) link');
      const website = webAddress(websiteIn);
      if (website === null)
        throw fieldFailure('website', 'invalid', 'website must be an absolute http:// or https:// URL of at most 2048 characters');
      out.website = website;
      out.file1 = null;
    }
    if (input.customer_id !== undefined) {
      const customerId = str(input.customer_id);
      if (customerId === null) {
        out.customer_id = null;
        out.is_directional = 0;
      } else {
        const found = (await customers.viewerCustomers(appId, [customerId])).get(customerId);
        // Sales direct links at their own customers only; others' are as unknown as missing ones.
        if (!found || (!m.isManager && found.ownerId !== m.userId)) throw failure('customer_not_found');
        out.customer_id = customerId;
        out.is_directional = 1;
      }
    }
    for (const key of ['remark', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const) {
      const v = input[key];
      if (v === undefined) continue;
      const max = key === 'remark' ? 4000 : 255;
      if (v.length > max) throw fieldFailure(key, 'invalid', `${key} must be at most ${max} characters`);
      out[key] = v === '' ? null : v;
    }
    if (input.form_position !== undefined) out.form_position = input.form_position === 0 ? null : input.form_position;
    const formFields = parseFormFields(input.form_fields);
    if (formFields !== undefined) out.form_fields = formFields;
    const tags = parseTags(input.tags);
    if (tags !== null) out.tags = JSON.stringify(tags);
    if (input.expires_at !== undefined) {
      if (input.expires_at.trim() === '') out.expires_at = null;
      else {
        const at = clock.parse(input.expires_at.trim());
        if (at === null) throw fieldFailure('expires_at', 'invalid', 'expires_at must be yyyy-MM-dd HH:mm:ss');
        if (at <= clock.now()) throw fieldFailure('expires_at', 'invalid', 'expires_at must be in the future');
        out.expires_at = at;
      }
    }
    if (input.passcode !== undefined) {
      if (input.passcode === '') out.passcode_hash = null;
      else if (!PASSCODE_RE.test(input.passcode)) throw fieldFailure('passcode', 'invalid', 'passcode must be 4 to 64 characters');
      else out.passcode_hash = await hashPassword(input.passcode, ctx.config.insecureFastHash ? { N: 2 ** 10, r: 8, p: 1 } : undefined);
    }
    if (input.allow_download !== undefined) out.allow_download = input.allow_download;
    if (input.email_gate !== undefined) out.email_gate = input.email_gate;
    if (input.embed !== undefined) out.embed = input.embed;
    return out;
  }

  /** A link of the project the caller may change: Master and Admin any, Sales their own; else link_not_found. */
  async function changeable(appId: string, callerId: number, linkId: string): Promise<{ m: Membership; link: LinkRow }> {
    const m = await access.membership(appId, callerId);
    const link = await repo.find(db, appId, linkId);
    if (!link || (!m.isManager && link.creator_id !== callerId)) throw failure('link_not_found');
    return { m, link };
  }

  async function record(m: Membership, linkId: string, withUrl: boolean) {
    const found = await histories.linkRecord(m, linkId, withUrl);
    if (found === undefined) throw failure('link_not_found');
    return found;
  }

  // ---- The viewer. ----

  /** The link a share token opens, or why it does not. */
  async function linkOf(shareToken: string): Promise<{ link: LinkRow } | { why: Unavailable }> {
    if (!SHARE_TOKEN_RE.test(shareToken)) return { why: 'missing' };
    const link = await repo.byShareToken(reader, shareToken);
    if (!link) return { why: 'missing' };
    if (link.status !== 1) return { why: 'disabled' };
    if (link.expires_at !== null && link.expires_at <= clock.now()) return { why: 'expired' };
    return { link };
  }

  /** Whether the request is a member of the link's project signed in (never counted as a viewer). */
  async function isMember(link: LinkRow, userId: number | null): Promise<boolean> {
    if (userId === null) return false;
    try {
      const record = await access.memberRecord(link.app_id, userId);
      return record !== null && record.status === 0;
    } catch {
      return false;
    }
  }

  /** The customer a view is attributed to: the directed link's, else the one the visitor is tied to in the project. */
  async function customerFor(link: LinkRow, visitorId: string): Promise<ViewerCustomer | null> {
    const id =
      link.is_directional === 1 && link.customer_id !== null
        ? link.customer_id
        : await repo.visitorCustomer(reader, link.app_id, visitorId);
    if (id === null) return null;
    return (await customers.viewerCustomers(link.app_id, [id])).get(id) ?? null;
  }

  const fileUrl = (link: LinkRow, n: number) => `${base}/api/v1.7/app/${link.app_id}/file/${link.file1 ?? ''}/page/${n}`;

  /** A behaviour record's body about the link, for the view's customer (the interface's content shapes). */
  function behaviourBody(
    link: LinkRow,
    customer: ViewerCustomer,
    visitorId: string | null,
    action: 'link_view_log' | 'file_view_duration' | 'link_view_clue' | 'link_leave_log',
    when: number,
    content: Record<string, unknown>,
    env: ReturnType<AppContext['visitors']['describe']> | null,
  ): Record<string, unknown> {
    return {
      customerId: customer.id,
      customerName: customer.name,
      svcUserId: String(customer.ownerId),
      dealUserId: visitorId,
      action,
      userType: 0,
      when: clock.format(when),
      content: JSON.stringify(content),
      clientName: env?.clientName ?? null,
      clientVersion: env?.clientVersion ?? null,
      os: env?.os ?? null,
      osVersion: env?.osVersion ?? null,
      ip: env?.ip ?? null,
      location: env?.location ?? null,
      province: env?.province ?? null,
      city: env?.city ?? null,
    };
  }

  const linkRef = (link: Pick<LinkRow, 'id' | 'type' | 'name' | 'src'>) => ({
    linkId: link.id,
    linkType: link.type,
    title: link.name ?? '',
    linkSrc: link.src ?? 'link_view',
  });

  /** Duration item bodies of the pages that changed (positions as stored). */
  function durationBodies(link: LinkRow, file: Pick<ViewerFile, 'id' | 'name'> | null, changed: Map<number, PageDwell>, now: number) {
    return [...changed].map(([n, p]) => ({
      position: p.position,
      body: {
        fileId: file?.id ?? link.file1,
        fileName: file?.name ?? null,
        fileURL: link.type === 1 ? fileUrl(link, n) : link.website,
        pageIndex: String(n),
        duration: String(p.ms),
        sortIndex: p.position,
        createdAt: clock.format(p.firstAt),
        endedAt: clock.format(now),
        total: p.ms,
      },
    }));
  }

  /** How many pages beacons may name: a file's pages, one for web pages. */
  async function pagesOf(link: LinkRow): Promise<{ count: number; file: ViewerFile | null }> {
    if (link.type !== 1 || link.file1 === null) return { count: 1, file: null };
    const file = await viewerFile(link.app_id, link.file1);
    return { count: Math.max(1, file?.pageCount ?? 1), file };
  }

  /** Starts a view (the `open` beacon, or a redirect link's visit): its view log, and its customer's record. */
  async function startView(
    link: LinkRow,
    viewId: string,
    seq: number,
    visitor: VisitorRequest,
    now: number,
    close: boolean,
    page: number | null,
  ): Promise<void> {
    const env = ctx.visitors.describe(visitor.userAgent, visitor.ip);
    const customer = await customerFor(link, visitor.visitorId);
    // The page shown first is read from the open on: its Duration item (and page-turn record) start now.
    const first = page === null ? null : { position: 0, ms: 0, firstAt: now };
    const file = page === null || link.type !== 1 ? null : await viewerFile(link.app_id, link.file1 ?? '');
    const firstDurations =
      first === null || page === null ? [] : durationBodies(link, file, new Map([[page, first]]), now).map((d) => d.body);
    const write: ViewerWrite = {
      appId: link.app_id,
      now,
      linkTags: tagsOf(link),
      viewLogs: [
        {
          id: viewId,
          body: {
            linkId: link.id,
            viewTime: clock.format(now),
            viewerId: customer?.id ?? visitor.visitorId,
            viewerName: customer?.name ?? null,
            ip: env.ip,
            location: env.location,
            system: env.system,
            client: env.client,
            utmSource: link.utm_source,
            utmMedium: link.utm_medium,
            utmCampaign: link.utm_campaign,
            utmContent: link.utm_content,
            utmTerm: link.utm_term,
            totalDuration: 0,
            totalPage: firstDurations.length,
            durations: firstDurations,
            ...(close ? { leaveTime: clock.format(now) } : {}),
          },
          state: {
            visitor_id: visitor.visitorId,
            customer_id: customer?.id ?? null,
            beacon_seq: seq,
            beacon_at: now,
            closed_at: close ? now : null,
            left_at: close ? now : null,
          },
        },
      ],
      behaviours:
        customer === null
          ? []
          : [
              {
                id: timeOrderedUuid(),
                body: behaviourBody(
                  link,
                  customer,
                  visitor.visitorId,
                  'link_view_log',
                  now,
                  { ...linkRef(link), linkViewLogId: viewId },
                  env,
                ),
              },
              ...(first === null
                ? []
                : [
                    {
                      id: timeOrderedUuid(),
                      body: behaviourBody(
                        link,
                        customer,
                        visitor.visitorId,
                        'file_view_duration',
                        now,
                        { fileViewDurationId: `${viewId}:0`, linkViewLogId: viewId },
                        env,
                      ),
                    },
                  ]),
              ...(close
                ? [
                    {
                      id: timeOrderedUuid(),
                      body: behaviourBody(
                        link,
                        customer,
                        visitor.visitorId,
                        'link_leave_log',
                        now,
                        {
                          ...linkRef(link),
                          linkViewLogId: viewId,
                          viewTime: clock.format(now),
                          leaveTime: clock.format(now),
                          lastLeaveTime: '',
                        },
                        env,
                      ),
                    },
                  ]
                : []),
            ],
    };
    // A visitor not yet known opens the link: no behaviour record (it has no customer), but its
    // owner hears of it (docs/events.md, LinkView.create).
    if (customer === null) {
      write.events = [
        {
          event_type: 'create',
          domainType: 'LinkView',
          domainId: viewId,
          body: {
            id: viewId,
            appId: link.app_id,
            linkId: link.id,
            linkName: link.name,
            linkType: link.type,
            svcUserId: link.creator_id,
            viewerId: visitor.visitorId,
            customerId: null,
            viewTime: clock.format(now),
            location: env.location,
            system: env.system,
            client: env.client,
          },
        },
      ];
    }
    await ingest.recordViewer(write);
    if (customer !== null) void alertOwner(link, customer, viewId, env);
  }

  /** Counts a wrong passcode of the link: null, or the lockout it started (logged, for the owner to hear of it). */
  async function passcodeFailed(link: LinkRow, now: number): Promise<{ lockedFor: number } | null> {
    const { linkPasscodeFailures: max, linkPasscodeLockoutSeconds: seconds } = ctx.config;
    const until = await repo.passcodeFailed(db, link.app_id, link.id, now, seconds * 1000, max, now + seconds * 1000);
    if (until === null || until <= now) return null;
    logger.warn(
      { appId: link.app_id, linkId: link.id, failures: max, until: clock.format(until) },
      'links: too many wrong passcodes for the link; its passcode is refused until the lockout ends or a new one is set',
    );
    return { lockedFor: Math.ceil((until - now) / 1000) };
  }

  /** E-mails the link's creator when a customer opens the link for the first time (with SMTP configured). */
  async function alertOwner(
    link: LinkRow,
    customer: ViewerCustomer,
    viewId: string,
    env: { location: string | null; client: string | null },
  ) {
    if (!notifier.enabled || link.creator_id === null) return;
    try {
      if (await repo.customerViewedBefore(reader, link.app_id, link.id, customer.id, viewId)) return;
      const owner = await accounts.userById(link.creator_id);
      if (!owner?.email) return;
      const who = customer.name ?? 'A customer';
      const where = [env.client, env.location].filter(Boolean).join(', ');
      await notifier.send({
        to: owner.email,
        subject: `${who} opened “${link.name ?? 'your link'}”`,
        text:
          `${who} opened your link “${link.name ?? ''}” for the first time at ${clock.format(clock.now())}` +
          `${where ? ` (${where})` : ''}.\n\nTheir reading shows in Rapport as they go: ${base}/l/${link.share_token} is the link.\n`,
      });
    } catch (err) {
      logger.warn({ err, linkId: link.id }, 'links: the owner alert failed');
    }
  }

  /** A beacon that starts a view, or continues the visitor's recent one (a reload within 30 minutes). */
  async function openBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest) {
    const notCounted = { counted: false as const };
    if (ctx.visitors.describe(visitor.userAgent, visitor.ip).isBot || (await isMember(link, visitor.userId))) return notCounted;
    const viewId = await viewOf(beacon.token, link.id);
    if (viewId === null)
      throw publicFailure('view_token_invalid', 'The view token is not valid for this link (forged, another link’s, or expired)');
    const now = clock.now();
    const existing = await repo.view(reader, link.app_id, viewId);
    if (existing) {
      if (existing.view.link_id !== link.id) throw publicFailure('view_token_invalid', 'The view belongs to another link');
      // The same open again (a retry): the view goes on.
      return { counted: true as const, token: beacon.token, seq: Math.max(existing.view.beacon_seq, beacon.seq) };
    }
    const recent = await repo.recentView(reader, link.app_id, visitor.visitorId, link.id, now - CONTINUE_VIEW_MS);
    if (recent) {
      // The page goes on with the view's token, its sequence and what it read so far (its figures are totals).
      const dwell: Record<string, number> = {};
      for (const d of (await repo.view(reader, link.app_id, recent.id))?.durations ?? [])
        dwell[String(d.page_index)] = Number(d.duration ?? 0);
      return { counted: true as const, continued: true, token: await viewToken(link.id, recent.id), seq: recent.beacon_seq, dwell };
    }
    try {
      await startView(link, viewId, beacon.seq, visitor, now, false, beacon.page);
    } catch (err) {
      // The same open racing itself: one of the two wrote the view.
      if (!isUniqueViolation(err)) throw err;
    }
    return { counted: true as const, token: beacon.token, seq: beacon.seq };
  }

  /** A beacon of an open view: its dwell, the pages read for the first time, its leave. */
  async function viewBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest, file: ViewerFile | null) {
    const viewId = await viewOf(beacon.token, link.id);
    if (viewId === null)
      throw publicFailure('view_token_invalid', 'The view token is not valid for this link (forged, another link’s, or expired)');
    for (let attempt = 1; ; attempt += 1) {
      const found = await repo.view(reader, link.app_id, viewId);
      if (!found) throw publicFailure('view_not_found', 'No such view: a view starts with its open beacon');
      const { view, durations } = found;
      if (view.link_id !== link.id) throw publicFailure('view_token_invalid', 'The view belongs to another link');
      if (beacon.seq <= view.beacon_seq) return { duplicate: true };
      const now = Math.max(clock.now(), view.beacon_at ?? 0);
      const state: DwellState = {
        pages: new Map(
          durations.map((d) => [
            Number(d.page_index),
            { position: d.position, ms: Number(d.duration ?? 0), firstAt: d.created_at ?? view.view_time },
          ]),
        ),
        viewTime: view.view_time,
        lastBeaconAt: view.beacon_at ?? view.view_time,
        closed: view.closed_at !== null,
      };
      const change = applyDwell(state, beacon, now);
      const customer =
        view.customer_id === null
          ? null
          : ((await customers.viewerCustomers(link.app_id, [view.customer_id])).get(view.customer_id) ?? null);
      const env = customer === null ? null : ctx.visitors.describe(visitor.userAgent, visitor.ip);
      const leave = beacon.type === 'leave';
      // A closed view stays closed through a hide (the tail of leaving); reading again reopens it.
      const closedAt = leave ? now : beacon.type === 'hide' ? view.closed_at : null;
      const behaviours: NonNullable<ViewerWrite['behaviours']> = [];
      if (customer !== null) {
        for (const n of change.firstRead) {
          const page = change.pages.get(n) as PageDwell;
          behaviours.push({
            id: timeOrderedUuid(),
            body: behaviourBody(
              link,
              customer,
              view.visitor_id,
              'file_view_duration',
              now,
              { fileViewDurationId: `${view.id}:${page.position}`, linkViewLogId: view.id },
              env,
            ),
          });
        }
        if (leave) behaviours.push({ id: timeOrderedUuid(), body: leaveBody(link, customer, view, now, env) });
      }
      const applied = await ingest.recordViewer({
        appId: link.app_id,
        now,
        linkTags: tagsOf(link),
        behaviours,
        progress: {
          viewLogId: view.id,
          fromSeq: view.beacon_seq,
          totals: {
            totalDuration: change.totalMs,
            totalPage: change.pages.size,
            leaveTime: leave ? now : closedAt !== null ? view.left_at : null,
          },
          state: {
            beacon_seq: beacon.seq,
            beacon_at: now,
            closed_at: closedAt,
            left_at: leave ? now : view.left_at,
          },
          durations: durationBodies(link, file, change.changed, now),
        },
      });
      if (applied) return { accepted: true };
      // Another beacon of the view moved it on meanwhile: read it again.
      if (attempt >= 3) return { duplicate: true };
    }
  }

  function leaveBody(
    link: Pick<LinkRow, 'id' | 'type' | 'name' | 'src'>,
    customer: ViewerCustomer,
    view: Pick<ViewRow, 'id' | 'view_time' | 'left_at' | 'visitor_id'>,
    at: number,
    env: ReturnType<AppContext['visitors']['describe']> | null,
  ) {
    return behaviourBody(
      link as LinkRow,
      customer,
      view.visitor_id,
      'link_leave_log',
      at,
      {
        ...linkRef(link),
        linkViewLogId: view.id,
        viewTime: clock.format(view.view_time),
        leaveTime: clock.format(at),
        lastLeaveTime: view.left_at === null ? '' : clock.format(view.left_at),
      },
      env,
    );
  }

  /** The clue of a form, and what follows for its customer; in `trx`. */
  async function submitForm(
    trx: Transaction<Database>,
    link: LinkRow,
    fields: Partial<Record<FormField, string>>,
    formType: string,
    visitor: VisitorRequest,
    viewId: string | null,
    now: number,
  ): Promise<void> {
    const appId = link.app_id;
    const clueId = timeOrderedUuid();
    const env = ctx.visitors.describe(visitor.userAgent, visitor.ip);
    let customer: ViewerCustomer | null = null;
    if (link.is_directional === 1 && link.customer_id !== null) {
      customer = (await customers.viewerCustomers(appId, [link.customer_id])).get(link.customer_id) ?? null;
    } else {
      const owner = await ownerFor(link);
      const input: Record<string, unknown> = {};
      for (const f of ['name', 'email', 'phone', 'company', 'title'] as const) if (fields[f] !== undefined) input[f] = fields[f];
      if (input.name === undefined && typeof input.email === 'string') input.name = input.email.split('@')[0];
      input.deal_user_id = visitor.visitorId;
      const made = owner === null ? null : await customers.fromForm(trx, appId, input, owner, now);
      customer = made?.customer ?? null;
    }
    const write: ViewerWrite = {
      appId,
      now,
      linkTags: tagsOf(link),
      clues: [
        {
          id: clueId,
          body: {
            linkId: link.id,
            linkName: link.name,
            linkViewLogId: viewId,
            formType,
            name: fields.name ?? null,
            title: fields.title ?? null,
            email: fields.email ?? null,
            phone: fields.phone ?? null,
            company: fields.company ?? null,
            website: fields.website ?? null,
            interested: fields.interested ?? null,
            submitAt: clock.format(now),
          },
        },
      ],
      behaviours: [],
    };
    if (viewId !== null) write.viewClue = { viewLogId: viewId, clueId };
    if (customer !== null) {
      await repo.tieVisitor(trx, appId, visitor.visitorId, customer.id, now);
      // The visitor's earlier views, anonymous until now, become the customer's: their records as they happened.
      const views = await repo.anonymousViews(trx, appId, visitor.visitorId, JOIN_MAX_VIEWS);
      for (const v of views) {
        const l = { id: v.link_id, type: v.link_type, name: v.link_name, src: v.link_src };
        write.behaviours?.push({
          id: timeOrderedUuid(),
          body: behaviourBody(
            l as LinkRow,
            customer,
            v.visitor_id,
            'link_view_log',
            v.view_time,
            { ...linkRef(l), linkViewLogId: v.id },
            null,
          ),
        });
        for (const d of v.durations) {
          write.behaviours?.push({
            id: timeOrderedUuid(),
            body: behaviourBody(
              l as LinkRow,
              customer,
              v.visitor_id,
              'file_view_duration',
              d.created_at ?? v.view_time,
              { fileViewDurationId: d.id, linkViewLogId: v.id },
              null,
            ),
          });
        }
        if (v.left_at !== null)
          write.behaviours?.push({ id: timeOrderedUuid(), body: leaveBody(l, customer, { ...v, left_at: null }, v.left_at, null) });
      }
      write.attribute = { viewLogIds: views.map((v) => v.id), customerId: customer.id, viewerName: customer.name };
      write.behaviours?.push({
        id: timeOrderedUuid(),
        body: behaviourBody(
          link,
          customer,
          visitor.visitorId,
          'link_view_clue',
          now,
          { linkId: link.id, linkType: link.type, linkViewLogId: viewId ?? '', clueId },
          env,
        ),
      });
    }
    await ingest.recordViewer(write, trx);
  }

  /** Whose a form's new customer is: the link's creator while an active member, else the project's creator. */
  async function ownerFor(link: LinkRow): Promise<number | null> {
    if (link.creator_id !== null) {
      const record = await access.memberRecord(link.app_id, link.creator_id).catch(() => null);
      if (record !== null && record.status === 0) return link.creator_id;
    }
    return access.projectCreator(link.app_id);
  }

  /** Reads the form's fields (the link's, plus what a gate asks), checked for their format. */
  function formFields(link: LinkRow, body: Record<string, unknown>, only?: FormField[]): Partial<Record<FormField, string>> {
    const allowed = only ?? formFieldsOf(link, DEFAULT_FORM_FIELDS);
    const out: Partial<Record<FormField, string>> = {};
    for (const f of allowed) {
      const v = body[f];
      if (v === undefined || v === null || v === '') continue;
      if (typeof v !== 'string') throw publicFailure('form_invalid', `${f} must be text`);
      const text = v.trim();
      if (text === '') continue;
      if (text.length > (f === 'interested' ? 4000 : 255)) throw publicFailure('form_invalid', `${f} is too long`);
      if (f === 'email' && !isEmail(text)) throw publicFailure('form_invalid', 'email is not a valid e-mail address');
      if (f === 'phone' && !isPhone(text.replace(/[\s-]/g, ''))) throw publicFailure('form_invalid', 'phone is not a valid mobile number');
      out[f] = f === 'phone' ? text.replace(/[\s-]/g, '') : text;
    }
    if (out.email === undefined && out.phone === undefined && out.name === undefined) {
      throw publicFailure('form_invalid', 'Give at least a name, an e-mail address or a mobile number');
    }
    return out;
  }

  return {
    /** Any member of the project makes a link; it is theirs (creatorId). */
    async create(appId: string, callerId: number, input: LinkInput, withUrl: boolean) {
      const m = await access.membership(appId, callerId);
      const columns = await linkColumns(m, input, null);
      const user = await accounts.userById(callerId);
      const now = clock.now();
      const id = timeOrderedUuid();
      for (let attempt = 1; ; attempt += 1) {
        // 128 bits of randomness: unguessable, and a clash (practically never) draws again.
        const shareToken = randomToken(16);
        try {
          await repo.insert(db, {
            id,
            app_id: appId,
            creator_id: callerId,
            creator_name: user?.name ?? null,
            share_token: shareToken,
            form_type: '1',
            src: 'link_view',
            is_directional: 0,
            customer_id: null,
            read_seq: 0,
            created_at: now,
            updated_at: now,
            ...columns,
            name: columns.name ?? '',
            type: columns.type ?? 1,
            short_name: null,
            conference_id: null,
            file2: null,
            file3: null,
            file4: null,
            clue_id: null,
            official_account_id: null,
            form_pop_time: null,
            weixin_grant_type: null,
          });
          break;
        } catch (err) {
          if (!isUniqueViolation(err) || attempt >= 3) throw err;
        }
      }
      return record(m, id, withUrl);
    },

    /** Master and Admin edit any link of the project, Sales their own; fields not given stay. */
    async update(appId: string, callerId: number, linkId: string, input: LinkInput, withUrl: boolean) {
      const { m, link } = await changeable(appId, callerId, linkId);
      const columns = await linkColumns(m, input, link);
      await repo.update(db, appId, linkId, { ...columns, updated_at: clock.now() });
      // A new passcode (or none) ends a lockout of the old one.
      if (columns.passcode_hash !== undefined) await repo.clearPasscodeFailures(db, appId, linkId);
      return record(m, linkId, withUrl);
    },

    /** Disables the link: its page answers 410 Gone from now on; its views and counters stay. */
    async disable(appId: string, callerId: number, linkId: string) {
      const { link } = await changeable(appId, callerId, linkId);
      if (link.status === 1) {
        const now = clock.now();
        await repo.update(db, appId, linkId, { status: 0, disabled_at: now, updated_at: now });
      }
      return true as const;
    },

    /** `/link/{link-id}?share_token=`: the viewer's address when the id and token are one link's, else null. */
    async legacyAddress(linkId: string, shareToken: string | undefined): Promise<string | null> {
      if (shareToken === undefined) return null;
      const found = await linkOf(shareToken);
      if (!('link' in found) && found.why === 'missing') return null;
      const link = 'link' in found ? found.link : await repo.byShareToken(reader, shareToken);
      return link && link.id === linkId ? `/l/${encodeURIComponent(shareToken)}` : null;
    },

    /**
     * The viewer's answer to `GET /l/{shareToken}`: a gate, the page of a file or web page link,
     * a redirect link's target (the visit recorded, unless a bot, a member or a HEAD request),
     * or why the link does not open. Nothing is written for file and web pages: their view starts
     * with the page's `open` beacon.
     */
    async viewer(shareToken: string, visitor: VisitorRequest, head: boolean): Promise<ViewerAnswer> {
      const found = await linkOf(shareToken);
      if (!('link' in found)) return { kind: 'unavailable', why: found.why };
      const link = found.link;
      const title = link.name ?? '';
      const unlocked = await unlockedOf(link, visitor.unlock);
      if (link.passcode_hash !== null && !unlocked.passcode) return { kind: 'passcode', shareToken, title, wrong: false };
      if (link.email_gate === 1 && !unlocked.gate) return { kind: 'email', shareToken, title, invalid: false };
      // Opened from a campaign's tracked link: the mail's recipient is viewing, as a form would have told.
      if (visitor.mailClick !== undefined && deps.mailClick !== undefined && !head) {
        const known = await deps.mailClick(link.app_id, visitor.mailClick);
        const person = !ctx.visitors.describe(visitor.userAgent, visitor.ip).isBot && !(await isMember(link, visitor.userId));
        if (known !== null && person) await repo.tieVisitor(db, link.app_id, visitor.visitorId, known.customerId, clock.now());
      }
      if (link.type === 3) {
        const counted = !head && !ctx.visitors.describe(visitor.userAgent, visitor.ip).isBot && !(await isMember(link, visitor.userId));
        if (counted) await startView(link, timeOrderedUuid(), 1, visitor, clock.now(), true, null);
        return { kind: 'redirect', url: await withHandoff(link, link.website ?? base, visitor.visitorId) };
      }
      const token = (await isMember(link, visitor.userId)) ? null : await viewToken(link.id, timeOrderedUuid());
      const formFields = formFieldsOf(link, DEFAULT_FORM_FIELDS);
      if (link.type === 2) {
        return {
          kind: 'web',
          shareToken,
          title,
          viewToken: token,
          // A framed page is another site's third-party frame: no hand-off there.
          website: link.embed === 1 ? (link.website ?? base) : await withHandoff(link, link.website ?? base, visitor.visitorId),
          embed: link.embed === 1,
          formPosition: link.form_position,
          formFields,
        };
      }
      const file = link.file1 === null ? null : await viewerFile(link.app_id, link.file1);
      if (file === null || file.status === 'failed' || file.pages.length === 0) return { kind: 'document-missing', title };
      return {
        kind: 'file',
        shareToken,
        title: title || file.name,
        viewToken: token,
        file,
        formPosition: link.form_position,
        formFields,
        download: link.allow_download === 1,
      };
    },

    /** A page image of an open file link (gates passed); null for anything else (the same 404). */
    async pageImage(
      shareToken: string,
      unlock: string | undefined,
      n: number,
      width: PageWidth,
      ifNoneMatch?: string,
    ): Promise<PageImage | null> {
      const found = await linkOf(shareToken);
      if (!('link' in found) || found.link.type !== 1 || found.link.file1 === null) return null;
      const link = found.link;
      const fileId = found.link.file1;
      const unlocked = await unlockedOf(link, unlock);
      if ((link.passcode_hash !== null && !unlocked.passcode) || (link.email_gate === 1 && !unlocked.gate)) return null;
      try {
        return await files.viewerPage(link.app_id, fileId, n, width, ifNoneMatch);
      } catch (err) {
        if (err instanceof AppError) return null;
        throw err;
      }
    },

    /** The original file of a link that allows its download (gates passed); null otherwise. */
    async download(
      shareToken: string,
      unlock: string | undefined,
    ): Promise<{ name: string; contentType: string; size: number; body: Readable } | null> {
      const found = await linkOf(shareToken);
      if (!('link' in found) || found.link.type !== 1 || found.link.file1 === null || found.link.allow_download !== 1) return null;
      const link = found.link;
      const fileId = found.link.file1;
      const unlocked = await unlockedOf(link, unlock);
      if ((link.passcode_hash !== null && !unlocked.passcode) || (link.email_gate === 1 && !unlocked.gate)) return null;
      return files.viewerOriginal(link.app_id, fileId);
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
    ): Promise<{ cookie: string } | { lockedFor: number } | null | undefined> {
      const found = await linkOf(shareToken);
      if (!('link' in found)) return undefined;
      const link = found.link;
      if (link.passcode_hash === null) return { cookie: await unlockCookie(link, await unlockedOf(link, unlock)) };
      const now = clock.now();
      const lockedUntil = await repo.passcodeLockedUntil(db, link.app_id, link.id);
      if (lockedUntil !== null && lockedUntil > now) return { lockedFor: Math.ceil((lockedUntil - now) / 1000) };
      if (typeof passcode !== 'string' || passcode.length > 256 || !(await verifyPassword(passcode, link.passcode_hash))) {
        return passcodeFailed(link, now);
      }
      const before = await unlockedOf(link, unlock);
      return { cookie: await unlockCookie(link, { ...before, passcode: true }) };
    },

    /**
     * The e-mail gate: an address (and a name, when given) before the first page. It is a form like
     * the link's own (a clue, a customer matched or made) and passes the gate: the unlock cookie.
     * Null when the address is not valid; undefined when the link does not open.
     */
    async passGate(
      shareToken: string,
      body: Record<string, unknown>,
      visitor: VisitorRequest,
    ): Promise<{ cookie: string } | null | undefined> {
      const found = await linkOf(shareToken);
      if (!('link' in found)) return undefined;
      const link = found.link;
      const unlocked = await unlockedOf(link, visitor.unlock);
      if (link.passcode_hash !== null && !unlocked.passcode) return undefined;
      let fields: Partial<Record<FormField, string>>;
      try {
        fields = formFields(link, body, ['email', 'name']);
      } catch (err) {
        if (err instanceof AppError) return null;
        throw err;
      }
      if (fields.email === undefined) return null;
      if (str(body.url) === null && !(await isMember(link, visitor.userId))) {
        const now = clock.now();
        await db.transaction().execute((trx) => submitForm(trx, link, fields, '2', visitor, null, now));
      }
      return { cookie: await unlockCookie(link, { ...unlocked, gate: true }) };
    },

    /**
     * A beacon (docs/links.md, "Beacons"). Its answer says what came of it; a malformed, forged or
     * misplaced one is refused with a public failure (HTTP 400) and writes nothing.
     */
    async beacon(shareToken: string, body: unknown, visitor: VisitorRequest, countView: (viewId: string) => Promise<void>) {
      const found = await linkOf(shareToken);
      if (!('link' in found)) throw publicFailure('link_unavailable', 'The link does not open (unknown, disabled or expired)');
      const link = found.link;
      const unlocked = await unlockedOf(link, visitor.unlock);
      if ((link.passcode_hash !== null && !unlocked.passcode) || (link.email_gate === 1 && !unlocked.gate)) {
        throw publicFailure('link_unavailable', 'The link is locked: give its passcode (or e-mail address) first');
      }
      const { count, file } = await pagesOf(link);
      let beacon: Beacon;
      try {
        beacon = parseBeacon(body, count);
      } catch (err) {
        if (err instanceof BeaconError) throw publicFailure('beacon_invalid', err.message);
        throw err;
      }
      const viewId = await viewOf(beacon.token, link.id);
      if (viewId === null)
        throw publicFailure('view_token_invalid', 'The view token is not valid for this link (forged, another link’s, or expired)');
      // Each view has its own budget of beacons (the route counts them).
      await countView(viewId);
      if (beacon.type === 'open') return openBeacon(link, beacon, visitor);
      return viewBeacon(link, beacon, visitor, file);
    },

    /**
     * The link's form (docs/links.md, "Who is viewing"): a clue; the customer matched by mobile
     * number or e-mail, or made (createWay 5, the link's creator its owner); the visitor tied to it
     * and its earlier anonymous views joined to it. The answer is the same whether a customer was
     * matched, made or neither; a filled honeypot (`url`) is answered alike and writes nothing.
     */
    async form(shareToken: string, body: Record<string, unknown>, visitor: VisitorRequest): Promise<true> {
      const found = await linkOf(shareToken);
      if (!('link' in found)) throw publicFailure('link_unavailable', 'The link does not open (unknown, disabled or expired)');
      const link = found.link;
      const unlocked = await unlockedOf(link, visitor.unlock);
      if ((link.passcode_hash !== null && !unlocked.passcode) || (link.email_gate === 1 && !unlocked.gate)) {
        throw publicFailure('link_unavailable', 'The link is locked: give its passcode (or e-mail address) first');
      }
      const fields = formFields(link, body);
      // A field people never see, which form-filling bots fill.
      if (str(body.url) !== null) return true;
      if (await isMember(link, visitor.userId)) return true;
      let viewId: string | null = null;
      if (typeof body.token === 'string') {
        const v = await viewOf(body.token, link.id);
        if (v !== null && (await repo.view(reader, link.app_id, v))?.view.link_id === link.id) viewId = v;
      }
      const now = clock.now();
      await db.transaction().execute((trx) => submitForm(trx, link, fields, '1', visitor, viewId, now));
      return true;
    },

    /**
     * The customer a site visitor's hand-off (`rapport_lv`, from a link to the project's site) names
     * in this project: the customer its link visitor is tied to by a form, or null (forged, another
     * project's, too old, or a visitor not tied yet).
     */
    async handedOffCustomer(appId: string, token: string): Promise<string | null> {
      const value = verifyValue((await signingKeys()).handoff, token) as { a?: unknown; v?: unknown; t?: unknown } | null;
      if (value === null || value.a !== appId || typeof value.v !== 'string' || typeof value.t !== 'number') return null;
      if (clock.now() / 1000 - value.t > HANDOFF_TTL_S) return null;
      return repo.visitorCustomer(reader, appId, value.v);
    },

    /**
     * Closes views silent for SILENT_VIEW_MS (every project's): the leave time is the last beacon's,
     * and a customer's view gets its leave record. Several processes may sweep at once: a view is
     * closed once. Returns how many it closed.
     */
    async sweep(): Promise<number> {
      const now = clock.now();
      const silent = await repo.silentViews(db, now - SILENT_VIEW_MS, 200);
      if (silent.length === 0) return 0;
      const customerIds = new Map<string, string[]>();
      for (const v of silent) if (v.customer_id !== null) customerIds.set(v.app_id, [...(customerIds.get(v.app_id) ?? []), v.customer_id]);
      const known = new Map<string, ViewerCustomer>();
      for (const [appId, ids] of customerIds) for (const [id, c] of await customers.viewerCustomers(appId, ids)) known.set(id, c);
      let closed = 0;
      for (const v of silent) {
        if (await closeSilent(v, v.customer_id === null ? null : (known.get(v.customer_id) ?? null), now)) closed += 1;
      }
      return closed;
    },
  };

  async function closeSilent(v: SilentView, customer: ViewerCustomer | null, now: number): Promise<boolean> {
    const link = { id: v.link_id, type: v.link_type, name: v.link_name, src: v.link_src };
    const found = await repo.view(reader, v.app_id, v.id);
    const pages = found?.durations ?? [];
    let total = 0;
    for (const d of pages) total += Number(d.duration ?? 0);
    return ingest.recordViewer({
      appId: v.app_id,
      now,
      linkTags: tagsOf({ tags: v.link_tags }),
      behaviours: customer === null ? [] : [{ id: timeOrderedUuid(), body: leaveBody(link, customer, v, v.beacon_at, null) }],
      progress: {
        viewLogId: v.id,
        fromSeq: v.beacon_seq,
        totals: { totalDuration: total, totalPage: pages.length, leaveTime: v.beacon_at },
        state: { beacon_seq: v.beacon_seq, beacon_at: v.beacon_at, closed_at: now, left_at: v.beacon_at },
        durations: [],
      },
    });
  }
}

export type LinksService = ReturnType<typeof createLinksService>;
