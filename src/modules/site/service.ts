import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type Database, isUniqueViolation } from '../../db/index.ts';
import { overloaded, publicFailure, publicForbidden } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { actionSpec } from '../behaviour/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import { type IngestService, type SiteWrite, type ViewerWrite, type VisitorRecord, visitorRecordBody } from '../ingest/service.ts';
import type { ProjectsService, SiteProject } from '../projects/service.ts';
import { type Collect, CollectError, type Identify, KEY_BEHAVIOURS, type SiteEvent, parseCollect, siteOf } from './collect.ts';
import { createSiteQuota } from './quota.ts';
import { createSiteSweep, forCustomer } from './sweep.service.ts';
import { siteRepository as repo } from './repository.ts';

export { COLLECT_MAX_BYTES } from './collect.ts';
// What the site stores through ingestion's viewer write, built by the composition root for ingestion.
export { createSiteStore } from './store.service.ts';
export { type SiteStatus, createSiteStatus } from './status.service.ts';
export { SITE_VISIT_IDLE_MS, SWEEP_EVERY_MS } from './sweep.service.ts';
// What erasure needs of the site's tables, built by the composition root for it.
export { type SiteErasure, createSiteErasure } from './erasure.service.ts';

/**
 * Resolves a tracked e-mail click's token (the `rapport_click` parameter of the landing URL) to the
 * customer it was mailed to and the campaign, or null (forged, expired, another project's). The
 * campaigns feature provides it; without it no token resolves.
 */
export type ClickTokenResolver = (
  appId: string,
  token: string,
) => Promise<{ customerId: string; postId: string; countReturn?: () => Promise<void> } | null>;

/** Told of a return visit: a visit that began with a resolved click of the campaign `postId`. */
export type ReturnVisitRecorder = (visit: {
  appId: string;
  postId: string;
  customerId: string;
  visitId: string;
  at: number;
}) => Promise<void>;

export const noClickTokens: ClickTokenResolver = async () => null;

/**
 * The customer a shared link's visitor hand-off (`rapport_lv`) names in the project, or null: the
 * links module's, whose form tied its visitor (docs/identity.md).
 */
export type HandoffResolver = (appId: string, token: string) => Promise<string | null>;

/** Anonymous records one join turns into the customer's at most (the visitor's oldest first). */
const JOIN_MAX_EVENTS = 5000;
/** Times a collect call is computed again when the visitor changed under it before it is answered `overloaded`. */
const RECORD_ATTEMPTS = 5;

/** Who is behind a collect call (the route reads it from the request). */
export interface SiteRequest {
  userAgent: string | undefined;
  ip: string | undefined;
}

type Env = ReturnType<AppContext['visitors']['describe']>;

/** A tracked e-mail click the call brings: the tie it makes, its campaign, and how to count its return visit. */
interface Click {
  tie: Tie;
  postId: string;
  countReturn: (() => Promise<void>) | undefined;
}

/** A new tie of the visitor to a customer. */
interface Tie {
  customer: ViewerCustomer;
  verified: boolean;
  via: 'identify' | 'click' | 'link';
}

/**
 * Site tracking (docs/site-tracking.md): the snippet's collect calls, from a site on the project's
 * list of origins. A known visitor's records are the customer's behaviour records; an anonymous
 * visitor's are kept until the visitor is identified, then written as the customer's with their own
 * times. Everything is written through the ingestion service's write path (records, rollups, events).
 */
export function createSiteService(
  ctx: AppContext,
  deps: {
    projects: ProjectsService;
    customers: CustomerWritePath;
    ingest: IngestService;
    /** Tracked e-mail clicks (the campaigns feature); by default none resolves. */
    clickTokens?: ClickTokenResolver;
    /** Told of each return visit from a campaign; by default nobody is. */
    returnVisits?: ReturnVisitRecorder;
    /** Shared links' visitor hand-offs; by default none resolves. */
    handoffs?: HandoffResolver;
  },
) {
  const { projects, customers, ingest } = deps;
  const clickTokens = deps.clickTokens ?? noClickTokens;
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;
  const { clock, logger } = ctx;
  const quota = createSiteQuota(ctx);
  const background = createSiteSweep(ctx, { customers, ingest });

  /** A behaviour record's body without its customer: what an anonymous visitor's record keeps. */
  const recordBody = (r: VisitorRecord, env: Env | null) => visitorRecordBody(clock, r, env);

  /** The record an event makes: its action and content (`web_access_log_id` is the visit). */
  function recordOf(e: SiteEvent, visitId: string, env: Env, postId: string | null): { action: string; content: Record<string, unknown> } {
    switch (e.t) {
      case 'visit':
        return {
          action: 'access_site',
          content: {
            web_access_log_id: visitId,
            title: e.title,
            url: e.url,
            site: siteOf(e.url),
            system: env.system ?? '',
            keyword: e.keyword,
            client: env.client ?? '',
            referrer: e.referrer,
            ip: env.ip ?? '',
            ...(postId === null ? {} : { postId }),
          },
        };
      case 'page':
        return { action: 'web_page_view', content: { web_access_log_id: visitId, web_page_view_log_id: e.id, url: e.url, title: e.title } };
      case 'leave':
        return {
          action: 'web_page_leave',
          content: {
            web_access_log_id: visitId,
            web_page_view_log_id: e.id,
            url: e.url,
            title: e.title,
            viewTime: clock.format(e.since),
            leaveTime: clock.format(e.at),
            lastLeaveTime: '',
            visibleTime: e.visibleMs,
          },
        };
      case 'act':
        return {
          action: e.action,
          content: { web_page_behaviour_log_id: e.id, web_access_log_id: visitId, url: e.url, title: e.title, target: e.target },
        };
      case 'track':
        return {
          action: e.action,
          content: { web_page_behaviour_log_id: e.id, web_access_log_id: visitId, url: e.url, title: e.title, data: e.data },
        };
    }
  }

  /** A signed customer id: `hash` is HMAC-SHA256(siteSecret, customerId) in hex. */
  function signedBy(secret: string, customerId: string, hash: string): boolean {
    const expected = createHmac('sha256', secret).update(customerId).digest();
    const given = Buffer.from(hash, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The customer an `identify` names, or null: it only finds, never creates, edits or merges. */
  async function identified(project: SiteProject, who: Identify): Promise<Tie | null> {
    if ('customerId' in who) {
      if (!signedBy(project.secret, who.customerId, who.hash)) return null;
      const c = (await customers.viewerCustomers(project.appId, [who.customerId])).get(who.customerId);
      return c ? { customer: c, verified: true, via: 'identify' } : null;
    }
    // A number in any form: the customers service reads it against the project's region.
    const phone = 'phone' in who && /^\+?[\d\s().-]{5,32}$/.test(who.phone) ? who.phone : null;
    const email = 'email' in who && isEmail(who.email) ? who.email : null;
    if (phone === null && email === null) return null;
    const c = await customers.viewerCustomerByContact(project.appId, phone, email);
    return c ? { customer: c, verified: false, via: 'identify' } : null;
  }

  /** A tracked e-mail click's customer and campaign, or null. */
  async function clicked(project: SiteProject, token: string): Promise<Click | null> {
    let resolved: Awaited<ReturnType<ClickTokenResolver>>;
    try {
      resolved = await clickTokens(project.appId, token);
    } catch (err) {
      logger.warn({ err, appId: project.appId }, 'site: resolving a click token failed');
      return null;
    }
    if (resolved === null) return null;
    const c = (await customers.viewerCustomers(project.appId, [resolved.customerId])).get(resolved.customerId);
    return c ? { tie: { customer: c, verified: true, via: 'click' }, postId: resolved.postId, countReturn: resolved.countReturn } : null;
  }

  /** Whether a new tie replaces the current one: a claim nobody vouched for never replaces a verified tie. */
  function replaces(tie: Tie, current: { customer_id: string; verified: number } | undefined): boolean {
    if (current === undefined) return true;
    if (current.customer_id === tie.customer.id) return tie.verified && current.verified === 0;
    return tie.verified || current.verified === 0;
  }

  /** The anonymous visitor's records, now the customer's: behaviour records with their own ids and times. */
  async function joined(appId: string, visitorId: string, customer: ViewerCustomer) {
    // One more than it joins: whether it read them all.
    const read = await repo.anonymousEvents(db, appId, visitorId, JOIN_MAX_EVENTS + 1);
    const rows = read.slice(0, JOIN_MAX_EVENTS);
    return {
      all: read.length <= JOIN_MAX_EVENTS,
      ids: rows.map((r) => r.id),
      behaviours: rows.map((r) => ({ id: r.id, body: forCustomer(JSON.parse(r.body) as Record<string, unknown>, customer) })),
    };
  }

  type CurrentTie = Awaited<ReturnType<typeof repo.visitorTie>>;

  /** The customer a collect call ties its visitor to now (a campaign click, a link's hand-off, identify), if any. */
  async function newTie(project: SiteProject, c: Collect, current: CurrentTie, click: Click | null): Promise<Tie | null> {
    const { appId } = project;
    let tie: Tie | null = click !== null && replaces(click.tie, current) ? click.tie : null;
    if (c.handoff !== null && deps.handoffs !== undefined && (tie ?? current) === undefined) {
      // An anonymous visitor a shared link handed to the site: its link visitor's form, once filled, names it.
      const customerId = await deps.handoffs(appId, c.handoff);
      const found = customerId === null ? undefined : (await customers.viewerCustomers(appId, [customerId])).get(customerId);
      if (found !== undefined) tie = { customer: found, verified: false, via: 'link' };
    }
    if (c.identify !== null) {
      const who = await identified(project, c.identify);
      if (who !== null && replaces(who, tie === null ? current : { customer_id: tie.customer.id, verified: tie.verified ? 1 : 0 }))
        tie = who;
    }
    return tie;
  }

  /** After a collect call was written: the campaign's return visit counted and recorded (failures only logged). */
  async function afterWrite(appId: string, c: Collect, click: Click | null, customer: ViewerCustomer | null): Promise<void> {
    if (click?.countReturn !== undefined) {
      try {
        await click.countReturn();
      } catch (err) {
        logger.warn({ err, appId }, "site: counting a campaign's return visit failed");
      }
    }
    if (click !== null && customer !== null && deps.returnVisits !== undefined) {
      try {
        await deps.returnVisits({ appId, postId: click.postId, customerId: customer.id, visitId: c.visitId, at: clock.now() });
      } catch (err) {
        logger.warn({ err, appId }, 'site: recording a return visit failed');
      }
    }
  }

  /** Writes one collect call; false when the visitor's tie or anonymous records changed meanwhile (nothing written). */
  async function record(project: SiteProject, c: Collect, env: Env, click: Click | null): Promise<boolean> {
    const { appId } = project;
    const now = clock.now();
    const current = await repo.visitorTie(reader, appId, c.visitorId);
    let customer: ViewerCustomer | null =
      current === undefined ? null : ((await customers.viewerCustomers(appId, [current.customer_id])).get(current.customer_id) ?? null);
    const postId = click?.postId ?? null;
    const tie = await newTie(project, c, current, click);
    const site: SiteWrite = {};
    const behaviours: NonNullable<ViewerWrite['behaviours']> = [];
    let joinedAll = false;
    if (tie !== null) {
      // A visitor newly joined to the customer brings what it did anonymously, as it happened.
      const earlier =
        customer?.id === tie.customer.id ? { all: false, ids: [], behaviours: [] } : await joined(appId, c.visitorId, tie.customer);
      joinedAll = earlier.all;
      behaviours.push(...earlier.behaviours);
      site.tie = { visitorId: c.visitorId, customerId: tie.customer.id, verified: tie.verified, via: tie.via, joined: earlier.ids };
      customer = tie.customer;
    }
    const anonymous: NonNullable<SiteWrite['anonymous']> = [];
    let lastAt = 0;
    let visit: Extract<SiteEvent, { t: 'visit' }> | null = null;
    for (const e of c.events) {
      lastAt = Math.max(lastAt, e.at);
      if (e.t === 'visit') visit = e;
      const { action, content } = recordOf(e, c.visitId, env, postId);
      const body = recordBody({ visitorId: c.visitorId, action, when: e.at, content }, env);
      const id = timeOrderedUuid();
      if (customer === null) anonymous.push({ id, visitorId: c.visitorId, body });
      else behaviours.push({ id, body: forCustomer(body, customer) });
    }
    if (c.events.length > 0 || postId !== null) {
      site.visits = [
        {
          visitorId: c.visitorId,
          id: c.visitId,
          at: lastAt === 0 ? now : lastAt,
          site: visit === null ? null : siteOf(visit.url) || null,
          referrer: visit === null ? null : visit.referrer || null,
          postId,
        },
      ];
    }
    if (anonymous.length > 0) {
      // What strangers can make a project store is capped a day; a known customer's records are not.
      quota.check(appId, now);
      site.anonymous = anonymous;
      site.dailyCap = quota.cap;
    }
    if (site.anonymous !== undefined || site.tie !== undefined) {
      site.guard = { visitorId: c.visitorId, tiedTo: current?.customer_id ?? null, verified: current?.verified === 1, joinedAll };
    }
    if (behaviours.length === 0 && site.visits === undefined && site.tie === undefined && site.anonymous === undefined) return true;
    if (!(await ingest.recordViewer({ appId, now, linkTags: [], behaviours, site }))) return false;
    await afterWrite(appId, c, click, customer);
    return true;
  }

  return {
    /**
     * The project a collect call's key names, if the call's `Origin` is on its list: else
     * site_key_invalid (400) or origin_not_allowed (403).
     */
    async project(key: string | undefined, origin: string | undefined, within?: string | null): Promise<SiteProject> {
      const project = key === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(key) ? null : await projects.bySiteKey(key);
      // On a project's share domain another project's key is as unknown.
      if (project === null || (within != null && project.appId !== within)) throw publicFailure('site_key_invalid');
      if (origin === undefined || !project.origins.includes(origin)) {
        throw publicForbidden(
          'origin_not_allowed',
          `The origin ${String(origin ?? '(none)').slice(0, 200)} is not one of the project's site origins`,
        );
      }
      return project;
    },

    /**
     * A collect call of the snippet from an allowed origin: its events recorded, the visitor
     * identified or joined. Answers alike whatever an `identify` found; a bot's call writes nothing.
     * `countVisitor` spends the visitor's rate budget once the call is read.
     */
    async collect(project: SiteProject, body: unknown, visitor: SiteRequest, countVisitor: (visitorId: string) => Promise<void>) {
      let c: Collect;
      try {
        c = parseCollect(body, clock.now());
      } catch (err) {
        if (err instanceof CollectError) throw publicFailure('collect_invalid', err.message);
        throw err;
      }
      for (const e of c.events) {
        if (e.t === 'track' && actionSpec(e.action) !== undefined && !(KEY_BEHAVIOURS as readonly string[]).includes(e.action)) {
          throw publicFailure(
            'collect_invalid',
            `track cannot record ${e.action}: it is an action of the catalogue that the snippet does not make`,
          );
        }
      }
      await countVisitor(c.visitorId);
      const env = ctx.visitors.describe(visitor.userAgent, visitor.ip);
      if (env.isBot) return {};
      // Resolved once: a call computed again does not count its campaign's return visit again.
      const click = c.click === null ? null : await clicked(project, c.click);
      for (let attempt = 1; ; attempt += 1) {
        try {
          // False: another call tied the visitor, or wrote anonymous records an identify must join, meanwhile.
          if (await record(project, c, env, click)) return {};
        } catch (err) {
          quota.observe(project.appId, err);
          // Two calls joined the same anonymous records at once: one wrote them; read again.
          if (attempt >= RECORD_ATTEMPTS || !isUniqueViolation(err)) throw err;
        }
        if (attempt >= RECORD_ATTEMPTS) throw overloaded(1, "the visitor's other calls kept changing it; send again");
      }
    },

    /** The background sweep of silent visits and expiry of anonymous visitors' rows (sweep.service.ts). */
    sweep: background.sweep,
    expireAnonymous: background.expireAnonymous,
  };
}

export type SiteService = ReturnType<typeof createSiteService>;
