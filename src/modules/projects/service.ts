import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type Database, isUniqueViolation, uniqueViolationTarget } from '../../db/index.ts';
import { failure, fieldFailure } from '../../http/errors.ts';
import { randomToken, safeEqual } from '../../lib/secrets.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { Actor } from '../access/service.ts';
import { type AppRow, type ProjectResponse, toProject } from './mapper.ts';
import { logoRepository } from './logo.repository.ts';
import { logoPath } from './logo.service.ts';
import { projectsRepository as repo } from './repository.ts';
import { createShareDomains, hostOf, parseShareDomain } from './share-domains.ts';

export { projectReadModel } from './repository.ts';
export { type ProjectLogos, createProjectLogos } from './logo.service.ts';
export type { ProjectReadModel } from './mapper.ts';
export type { ShareDomains } from './share-domains.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { DEFAULT_REGION, regionOf } from '../../lib/phones.ts';

/** Work other modules do inside the transaction that creates a project (e.g. default metadata). */
export type ProjectCreatedHook = (trx: Transaction<Database>, app: AppRow) => Promise<void>;

/** What projects asks of the members module, which owns the members table. */
export interface ProjectMembers {
  /** Writes the creator's Master membership in the transaction that creates the project. */
  addCreator(trx: Kysely<Database>, input: { appId: string; userId: number; now: number }): Promise<void>;
  /** Live projects the user is an active member of, newest first, with the user's role in each. */
  projectsOf(userId: number): Promise<(AppRow & { role: string })[]>;
}

export interface ProjectsDeps {
  /** Run in the transaction that creates a project, after its creator's membership. */
  hooks: readonly ProjectCreatedHook[];
  audit: AuditRecorder;
  members: ProjectMembers;
}

export interface ProjectInput {
  svc_user_id?: number | undefined;
  name?: string | undefined;
  description?: string | undefined;
  /** 1: Sales members may export their customers; 0: they may not (docs/data-operations.md). */
  sales_export?: number | undefined;
  site_origins?: string | undefined;
  /** The region its phone numbers are read against (ISO 3166-1 alpha-2; docs/projects.md). */
  region?: string | undefined;
  /** Edit only: the project's own share domain (docs/projects.md); '' clears it. */
  share_domain?: string | undefined;
}

/** A region sent with a create or an edit, upper-cased; undefined when not sent. Throws region_invalid. */
function validRegion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const region = regionOf(text);
  if (region === null) {
    throw fieldFailure('region', 'invalid', `region: ${text.slice(0, 20)} is not a region code (ISO 3166-1 alpha-2: GB, US, CN, DE, …)`);
  }
  return region;
}

/** Origins a project's snippet may send from: at most this many. */
const SITE_ORIGINS_MAX = 50;

/**
 * The site origins of an edit: comma-separated `scheme://host[:port]` of http or https, each kept in
 * its normal form (lower-case host, default port left out); '' clears them. Throws site_origins_invalid.
 */
export function parseSiteOrigins(text: string): string | null {
  const out: string[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    let origin: string | null = null;
    try {
      const u = new URL(item);
      // An origin only: no path (other than /), query, fragment or credentials.
      if (
        (u.protocol === 'http:' || u.protocol === 'https:') &&
        u.username === '' &&
        u.password === '' &&
        u.search === '' &&
        u.hash === '' &&
        u.pathname === '/'
      )
        origin = u.origin;
    } catch {
      origin = null;
    }
    if (origin === null) {
      throw fieldFailure(
        'site_origins',
        'invalid',
        `site_origins: ${item.slice(0, 100)} is not an origin (https://host or http://host:port)`,
      );
    }
    if (!out.includes(origin)) out.push(origin);
  }
  if (out.length > SITE_ORIGINS_MAX) throw fieldFailure('site_origins', 'invalid', `site_origins: at most ${SITE_ORIGINS_MAX} origins`);
  return out.length === 0 ? null : out.join(',');
}

/** A project as the site snippet's collect calls find it by its key. */
export interface SiteProject {
  appId: string;
  creatorId: number;
  origins: readonly string[];
  secret: string;
}

const NAME_MAX = 100;
/** How long a rotated-out project secret keeps working: 24 hours. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
const DESCRIPTION_MAX = 2000;

function validName(name: string | undefined, required: boolean): string | undefined {
  if (name === undefined || name.trim() === '') {
    if (required) throw failure('name_required');
    return undefined;
  }
  if (name.trim().length > NAME_MAX) throw failure('name_invalid', `name must be at most ${NAME_MAX} characters`);
  return name.trim();
}

function validDescription(description: string | undefined): string | undefined {
  if (description !== undefined && description.length > DESCRIPTION_MAX) {
    throw failure('description_invalid', `description must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}

function checkActingUser(input: ProjectInput, callerId: number): void {
  if (input.svc_user_id !== undefined && input.svc_user_id !== callerId) {
    throw failure('svc_user_id_invalid', 'svc_user_id must be the calling user');
  }
}

function siteSettingsOf(app: Pick<AppRow, 'site_key' | 'site_origins' | 'site_secret'>, base: string) {
  const siteKey = app.site_key ?? '';
  return {
    siteKey,
    siteOrigins: app.site_origins ?? '',
    siteSecret: app.site_secret ?? '',
    snippet: `<script async src="${base}/t.js" data-key="${siteKey}"></script>`,
  };
}

/**
 * Projects, for their members and managers (an actor the auth hook resolved), their creator, and
 * the modules that find a project by its secret or site key.
 */
export function createProjectsService(ctx: AppContext, deps: ProjectsDeps) {
  const { hooks, audit, members } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;
  const shareDomains = createShareDomains(ctx);
  return {
    /** Share domains: the project a request's Host names, where a project's public addresses start. */
    shareDomains,

    /** Creates a project; its creator becomes its Master member, in one transaction. */
    async create(callerId: number, input: ProjectInput): Promise<{ appId: string; name: string; description: string | null }> {
      checkActingUser(input, callerId);
      const name = validName(input.name, true) as string;
      const description = validDescription(input.description) ?? null;
      // A project made without a region reads its numbers as China's, as the original platform did.
      const region = validRegion(input.region) ?? DEFAULT_REGION;
      const now = clock.now();
      const app: AppRow = {
        id: timeOrderedUuid(),
        creator_id: callerId,
        name,
        type: null,
        description,
        icon_url: null,
        icon_width: null,
        icon_height: null,
        ios_bundle_id: null,
        android_package_name: null,
        conference_id: null,
        secret: randomToken(24),
        previous_secret: null,
        previous_secret_until: null,
        status: 0,
        redirect_uri: null,
        create_time: now,
        edit_time: now,
        site_key: randomToken(16),
        site_secret: randomToken(32),
        site_origins: null,
        sales_export: 1,
        region,
        share_domain: null,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insertApp(trx, app);
        // The creator made the project: their membership needs no acceptance.
        await members.addCreator(trx, { appId: app.id, userId: callerId, now });
        for (const hook of hooks) await hook(trx, app);
      });
      return { appId: app.id, name, description };
    },

    /** Edits the project (the actor is a manager). */
    async edit(actor: Actor, input: ProjectInput): Promise<true> {
      const { app, userId: callerId } = actor;
      const appId = app.id;
      // The interface names the creator's id here; the caller's own id is accepted as well.
      if (input.svc_user_id !== undefined && input.svc_user_id !== app.creator_id && input.svc_user_id !== callerId) {
        throw failure('svc_user_id_invalid', "svc_user_id must be the project creator's id (or the caller's)");
      }
      // A name that is sent must be a name: blank is refused, not ignored.
      if (input.name !== undefined && input.name.trim() === '') throw failure('name_invalid', 'name must not be blank');
      const name = validName(input.name, false);
      const description = validDescription(input.description);
      const siteOrigins = input.site_origins === undefined ? undefined : parseSiteOrigins(input.site_origins);
      const region = validRegion(input.region);
      const shareDomain = input.share_domain === undefined ? undefined : parseShareDomain(input.share_domain, shareDomains.ownHosts);
      const changesDomain = shareDomain !== undefined && shareDomain !== app.share_domain;
      await db
        .transaction()
        .execute(async (trx) => {
          const salesExport = input.sales_export;
          await repo.updateApp(trx, appId, {
            ...(region !== undefined ? { region } : {}),
            ...(changesDomain ? { share_domain: shareDomain } : {}),
            ...(name !== undefined ? { name } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(siteOrigins !== undefined ? { site_origins: siteOrigins } : {}),
            ...(salesExport !== undefined ? { sales_export: salesExport } : {}),
            edit_time: clock.now(),
          });
          const detail = {
            ...(name !== undefined ? { name } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(siteOrigins !== undefined ? { siteOrigins: siteOrigins ?? '' } : {}),
            ...(salesExport !== undefined ? { salesExport } : {}),
            ...(region !== undefined ? { region } : {}),
            ...(changesDomain ? { shareDomain: shareDomain ?? '' } : {}),
          };
          await audit(trx, { appId, actorId: callerId, action: 'project.edit', targetType: 'project', targetId: appId, detail });
        })
        .catch((err: unknown) => {
          // The unique index refuses a domain another project claims, whatever the race between two edits.
          if (changesDomain && isUniqueViolation(err) && uniqueViolationTarget(err).includes('share_domain')) {
            throw failure('share_domain_taken', `share_domain: ${shareDomain ?? ''} is claimed by another project`);
          }
          throw err;
        });
      return true;
    },

    /** The project as its members see it (no secret). */
    detail(actor: Actor): ProjectResponse {
      return toProject(actor.app, clock);
    },

    /**
     * The creator of a live project whose secret this is (ingestion's default customer owner), or
     * null when the project is unknown, deleted, or the secret is wrong.
     */
    async creatorBySecret(appId: string, secret: string): Promise<number | null> {
      const app = await repo.findSecret(ctx.database, appId);
      // The comparisons run even for an unknown project, so timing does not tell which failed.
      const current = safeEqual(app?.secret ?? '', secret);
      const previous = safeEqual(app?.previous_secret ?? '', secret) && (app?.previous_secret_until ?? 0) > clock.now();
      return app && app.status === 0 && (current || previous) ? app.creator_id : null;
    },

    /**
     * A new secret for the project (Master/Admin). The one it replaces stays valid for
     * SECRET_OVERLAP_MS more; one replaced before that is invalid at once. Audited, without secrets.
     */
    async rotateSecret(actor: Actor): Promise<{ secret: string; previousSecretValidUntil: string }> {
      const { app, userId: callerId } = actor;
      const appId = app.id;
      const now = clock.now();
      const secret = randomToken(24);
      const until = now + SECRET_OVERLAP_MS;
      await db.transaction().execute(async (trx) => {
        await repo.updateApp(trx, appId, { secret, previous_secret: app.secret, previous_secret_until: until, edit_time: now });
        await audit(trx, { appId, actorId: callerId, action: 'project.secret_rotate', targetType: 'project', targetId: appId });
      });
      return { secret, previousSecretValidUntil: clock.format(until) };
    },

    /** The project's site tracking settings, its secret included (Master and Admin). */
    async siteSettings(actor: Actor) {
      return siteSettingsOf(actor.app, await shareDomains.publicBase(actor.app.id));
    },

    /**
     * Caddy's on-demand TLS question (`GET /tls/ask?domain=`): whether a project claims the domain,
     * as `hostOf` reads a Host. Nothing else is told.
     */
    async claimed(domain: string): Promise<boolean> {
      const name = hostOf(domain);
      return name !== '' && name.length <= 253 && (await shareDomains.projectOfHost(name)) !== null;
    },

    /**
     * Makes a new site key (Master and Admin): pages still carrying the old one are refused from now on.
     * With `secret`, the site secret instead: customer ids signed with the old one no longer identify.
     */
    async rotateSite(actor: Actor, input: { what: 'key' | 'secret' }) {
      const { app, userId: callerId } = actor;
      const appId = app.id;
      const { what } = input;
      const value = randomToken(what === 'key' ? 16 : 32);
      await db.transaction().execute(async (trx) => {
        await repo.updateApp(trx, appId, { ...(what === 'key' ? { site_key: value } : { site_secret: value }), edit_time: clock.now() });
        await audit(trx, {
          appId,
          actorId: callerId,
          action: what === 'key' ? 'project.site_key_rotate' : 'project.site_secret_rotate',
          targetType: 'project',
          targetId: appId,
          detail: {},
        });
      });
      const base = await shareDomains.publicBase(appId);
      return siteSettingsOf({ ...app, ...(what === 'key' ? { site_key: value } : { site_secret: value }) }, base);
    },

    /** The origins the project's site snippet sends from ([] for none, or an unknown project). */
    /** The project's name, whatever its status (a campaign mail's From display name); null for none. */
    name(appId: string): Promise<string | null> {
      return repo.name(db, appId);
    },

    /**
     * What the public viewer shows of the project (docs/projects.md, "Logo"): its name and its logo's
     * address (null without one), or null for an unknown project.
     */
    async brand(appId: string): Promise<{ name: string; logo: string | null } | null> {
      const row = await logoRepository.brand(ctx.database.reader, appId);
      return row === undefined ? null : { name: row.name, logo: row.token === null ? null : logoPath(appId, row.token) };
    },

    /** The project's region (what its phone numbers mean); the default region for an unknown project. */
    async region(appId: string): Promise<string> {
      return (await repo.findRegion(ctx.database, appId))?.region ?? DEFAULT_REGION;
    },

    async siteOrigins(appId: string): Promise<string[]> {
      const app = await repo.findSiteOrigins(ctx.database, appId);
      return app?.site_origins ? app.site_origins.split(',') : [];
    },

    /** The live project whose site key this is, or null (the snippet's collect calls). */
    async bySiteKey(key: string): Promise<SiteProject | null> {
      const app = await repo.findBySiteKey(ctx.database, key);
      if (!app || app.status !== 0 || app.site_secret === null) return null;
      return {
        appId: app.id,
        creatorId: app.creator_id,
        origins: app.site_origins === null ? [] : app.site_origins.split(','),
        secret: app.site_secret,
      };
    },

    /** The caller's projects; `secret` only where the caller is Master or Admin. */
    async mine(callerId: number): Promise<(ProjectResponse & { secret: string | null })[]> {
      const rows = await members.projectsOf(callerId);
      return rows.map((r) => ({ ...toProject(r, clock), secret: r.role === 'Master' || r.role === 'Admin' ? r.secret : null }));
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
