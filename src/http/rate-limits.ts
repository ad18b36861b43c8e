import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { authModeOf } from './auth.ts';
import { rateLimited, tooManyRequests } from './errors.ts';

/**
 * Rate limits (docs/operations.md, Limits; docs/adr/0015-rate-limits.md). Every request counts
 * against one budget of requests per minute, chosen after its credentials were checked, so that
 * sending made-up credentials cannot open a fresh budget:
 * - a verified access token: its user's budget (`perToken`), shared by all the user's tokens;
 * - ingestion with a project secret: the project's (`perProject`);
 * - the token and register calls of an authenticated OAuth client: the client's from that address (`perClient`);
 * - anything else, and every request whose credentials are refused: the client address's (`perIp`).
 * Public routes count their own (`caller`), some several each: the site snippet's collect call its
 * address's, its key's and its visitor's; a viewer beacon its address's and its view's.
 * One window of a minute per budget, counted by @fastify/rate-limit in the process, or in Redis
 * when REDIS_URL is set. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset`; a spent budget answers 429 with `Retry-After`.
 */

/** Which budget a route's requests count against. */
export type LimitBy =
  /** the verified access token: every route the authentication hook checks (its default) */
  | 'token'
  /** the client address (the default of routes without a token) */
  | 'ip'
  /** the route checks its caller itself and counts through `limits.countAs` */
  | 'caller'
  /** not limited: health and readiness, the API reference, metrics (which has its own token) */
  | 'none';

/**
 * Whose budget a request spends: a user's (whatever token of theirs it carries: a new token buys no new
 * budget), a project's (ingestion by its secret), an OAuth client's from one address (a leaked client
 * secret used elsewhere cannot spend the budget of the client's own users), or the address's.
 */
export type Budget =
  | { user: number }
  | { project: string }
  | { client: string; ip: string }
  | 'ip'
  /** The public viewer from one address: its pages and page images (`perViewer`). */
  | { viewer: string }
  /** One view's beacons (`perView`): a view id, as its signed token names it. */
  | { view: string }
  /** The viewer's beacons from one address (`perBeaconAddress`), every view together: made-up views buy no fresh budget. */
  | { beaconAddress: string }
  /** Forms, passcodes and e-mail gates from one address (`perForm`): spam and guessing stop there. */
  | { form: string }
  /** One site visitor's collect calls (`perSiteVisitor`): the project and the snippet's visitor id. */
  | { siteVisitor: string }
  /** Every collect call of one site key (`perSiteKey`), whatever the visitor. */
  | { siteKey: string }
  /** Every collect call from one address (`perSiteAddress`), whatever the key and the visitor: a new visitor id buys no fresh budget. */
  | { siteAddress: string }
  /** One user's test mails of campaign drafts (`perTestMail`), on top of their token's budget. */
  | { testMail: number }
  /** One project's invitation links (`perInvitation`): created or resent, on top of the token's budget. */
  | { invitation: string }
  /** `GET /tls/ask` from one address (`perTlsAsk`): the TLS proxy's questions, apart from its other requests. */
  | { tlsAsk: string };

export interface RequestLimits {
  /** Counts the request against a budget; throws rate_limited (too_many_requests under /svcuser) when it is spent. */
  count(request: FastifyRequest, reply: FastifyReply, budget: Budget): Promise<void>;
  /**
   * Runs `verify` (a credential check) and counts the request under the budget of what it
   * returns; when it throws, the request counts under the client address, then the error goes on
   * (unless that budget is spent too: then 429).
   */
  countAs<T>(request: FastifyRequest, reply: FastifyReply, verify: () => Promise<T>, budget: (verified: T) => Budget): Promise<T>;
}

export interface RateLimitSettings {
  enabled: boolean;
  perToken: number;
  perProject: number;
  perClient: number;
  perIp: number;
  perViewer: number;
  perView: number;
  perBeaconAddress: number;
  perForm: number;
  perSiteVisitor: number;
  perSiteKey: number;
  perSiteAddress: number;
  perTestMail: number;
  perInvitation: number;
  perTlsAsk: number;
  redisUrl: string | undefined;
  redisPrefix: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    limitBy?: LimitBy;
  }
  interface FastifyInstance {
    /** The rate limits, for routes that count their requests themselves (`limitBy: 'caller'`). */
    limits: RequestLimits;
  }
}

const WINDOW_MS = 60_000;
/** Budgets a process keeps in memory without Redis (least recently used beyond it are forgotten). */
const LOCAL_BUDGETS = 50_000;
/** At most one log line per this many ms about Redis being unreachable. */
const REDIS_LOG_EVERY_MS = 30_000;

const KEY = Symbol('rapport.rateLimitKey');
type Keyed = FastifyRequest & { [KEY]?: string };

function limitByOf(request: FastifyRequest): LimitBy {
  return request.routeOptions.config?.limitBy ?? (authModeOf(request) === 'none' ? 'ip' : 'token');
}

/** A budget's key in the store (its prefix names its maximum) and who it is, as a refusal says. */
function keyOf(request: FastifyRequest, budget: Budget): { key: string; who: string } {
  if (budget === 'ip') return { key: `ip:${normalizeIP(request.ip)}`, who: 'this address' };
  if ('user' in budget) return { key: `user:${budget.user}`, who: 'this account' };
  if ('project' in budget) return { key: `project:${budget.project}`, who: 'this project' };
  if ('viewer' in budget) return { key: `viewer:${normalizeIP(budget.viewer)}`, who: 'this address' };
  if ('view' in budget) return { key: `view:${budget.view}`, who: 'this view' };
  if ('beaconAddress' in budget) return { key: `beacon-ip:${normalizeIP(budget.beaconAddress)}`, who: 'beacons from this address' };
  if ('form' in budget) return { key: `form:${normalizeIP(budget.form)}`, who: 'this address' };
  if ('siteVisitor' in budget) return { key: `site-visitor:${budget.siteVisitor}`, who: 'this site visitor' };
  if ('siteKey' in budget) return { key: `site-key:${budget.siteKey}`, who: 'this site key' };
  if ('siteAddress' in budget) return { key: `site-ip:${normalizeIP(budget.siteAddress)}`, who: 'site calls from this address' };
  if ('invitation' in budget) return { key: `invitation:${budget.invitation}`, who: 'invitations of this project' };
  if ('tlsAsk' in budget) return { key: `tls-ask:${normalizeIP(budget.tlsAsk)}`, who: 'TLS questions from this address' };
  if ('testMail' in budget) return { key: `test-mail:${budget.testMail}`, who: 'test mails of this account' };
  return { key: `client:${budget.client}:${normalizeIP(budget.ip)}`, who: 'this client from this address' };
}

const UNLIMITED: RequestLimits = {
  count: async () => {},
  countAs: (_request, _reply, verify) => verify(),
};

/** Registers the limits (or, when they are off, limits that count nothing) as `app.limits`. */
export async function registerRateLimits(app: FastifyInstance, settings: RateLimitSettings, log: FastifyBaseLogger): Promise<void> {
  if (!settings.enabled) {
    app.decorate('limits', UNLIMITED);
    return;
  }

  let redis: Redis | undefined;
  let lastRedisLog = -Infinity;
  const redisTrouble = (err: unknown) => {
    const now = performance.now();
    if (now - lastRedisLog < REDIS_LOG_EVERY_MS) return;
    lastRedisLog = now;
    log.warn({ err }, 'rate limits: Redis unreachable, requests are not counted until it answers');
  };
  if (settings.redisUrl !== undefined) {
    // Fail fast rather than queue: a request never waits for Redis to come back; it is then not counted.
    redis = new Redis(settings.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 1000,
    });
    redis.on('error', redisTrouble);
    const connection = redis;
    app.addHook('onClose', async () => {
      connection.disconnect();
    });
  }

  // The budget a key spends is named by its prefix (see keyOf).
  const maxByPrefix: Record<string, number> = {
    ip: settings.perIp,
    client: settings.perClient,
    project: settings.perProject,
    viewer: settings.perViewer,
    view: settings.perView,
    'beacon-ip': settings.perBeaconAddress,
    form: settings.perForm,
    'site-visitor': settings.perSiteVisitor,
    'site-key': settings.perSiteKey,
    'site-ip': settings.perSiteAddress,
    'test-mail': settings.perTestMail,
    invitation: settings.perInvitation,
    'tls-ask': settings.perTlsAsk,
    user: settings.perToken,
  };
  const maxOf = (key: string) => maxByPrefix[key.slice(0, key.indexOf(':'))] ?? settings.perToken;
  await app.register(rateLimit, {
    global: false,
    timeWindow: WINDOW_MS,
    cache: LOCAL_BUDGETS,
    skipOnError: true,
    keyGenerator: (request) => (request as Keyed)[KEY] ?? 'ip:unknown',
    max: (_request, key) => maxOf(key),
    ...(redis ? { redis, nameSpace: `${settings.redisPrefix}:` } : {}),
  });
  const check = app.createRateLimit();

  const limits: RequestLimits = {
    async count(request, reply, budget) {
      if (limitByOf(request) === 'none') return;
      const { key, who } = keyOf(request, budget);
      (request as Keyed)[KEY] = key;
      const result = await check(request);
      if (result.isAllowed) return;
      // Redis failed (skipOnError): nothing was counted, so nothing is said.
      if (result.remaining === result.max) {
        if (redis !== undefined) redisTrouble(new Error(`Redis is ${redis.status}`));
        return;
      }
      reply.header('RateLimit-Limit', result.max);
      reply.header('RateLimit-Remaining', result.remaining);
      reply.header('RateLimit-Reset', result.ttlInSeconds);
      if (!result.isExceeded) return;
      const detail = `Rate limit of ${result.max} requests a minute for ${who} reached; try again in ${result.ttlInSeconds} s`;
      throw request.url.startsWith('/svcuser/') ? tooManyRequests(result.ttlInSeconds, detail) : rateLimited(result.ttlInSeconds, detail);
    },

    async countAs(request, reply, verify, budget) {
      let verified: Awaited<ReturnType<typeof verify>>;
      try {
        verified = await verify();
      } catch (err) {
        await limits.count(request, reply, 'ip');
        throw err;
      }
      await limits.count(request, reply, budget(verified));
      return verified;
    },
  };
  app.decorate('limits', limits);

  // Routes without a token count under the client address (their own routes with `caller`).
  app.addHook('onRequest', async (request, reply) => {
    if (limitByOf(request) === 'ip') await limits.count(request, reply, 'ip');
  });
}
