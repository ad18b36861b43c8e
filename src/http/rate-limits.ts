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
  /** Forms, passcodes and e-mail gates from one address (`perForm`): spam and guessing stop there. */
  | { form: string }
  /** One site visitor's collect calls (`perSiteVisitor`): the project and the snippet's visitor id. */
  | { siteVisitor: string }
  /** Every collect call of one site key (`perSiteKey`), whatever the visitor. */
  | { siteKey: string }
  /** One user's test mails of campaign drafts (`perTestMail`), on top of their token's budget. */
  | { testMail: number };

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
  perForm: number;
  perSiteVisitor: number;
  perSiteKey: number;
  perTestMail: number;
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

  const maxOf = (key: string) =>
    key.startsWith('ip:')
      ? settings.perIp
      : key.startsWith('client:')
        ? settings.perClient
        : key.startsWith('project:')
          ? settings.perProject
          : key.startsWith('viewer:')
            ? settings.perViewer
            : key.startsWith('view:')
              ? settings.perView
              : key.startsWith('form:')
                ? settings.perForm
                : key.startsWith('site-visitor:')
                  ? settings.perSiteVisitor
                  : key.startsWith('site-key:')
                    ? settings.perSiteKey
                    : key.startsWith('test-mail:')
                      ? settings.perTestMail
                      : settings.perToken;
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
      const key =
        budget === 'ip'
          ? `ip:${normalizeIP(request.ip)}`
          : 'user' in budget
            ? `user:${budget.user}`
            : 'project' in budget
              ? `project:${budget.project}`
              : 'viewer' in budget
                ? `viewer:${normalizeIP(budget.viewer)}`
                : 'view' in budget
                  ? `view:${budget.view}`
                  : 'form' in budget
                    ? `form:${normalizeIP(budget.form)}`
                    : 'siteVisitor' in budget
                      ? `site-visitor:${budget.siteVisitor}`
                      : 'siteKey' in budget
                        ? `site-key:${budget.siteKey}`
                        : 'testMail' in budget
                          ? `test-mail:${budget.testMail}`
                          : `client:${budget.client}:${normalizeIP(budget.ip)}`;
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
      const who =
        budget === 'ip' || 'viewer' in budget || 'form' in budget
          ? 'this address'
          : 'user' in budget
            ? 'this account'
            : 'project' in budget
              ? 'this project'
              : 'view' in budget
                ? 'this view'
                : 'siteVisitor' in budget
                  ? 'this site visitor'
                  : 'siteKey' in budget
                    ? 'this site key'
                    : 'testMail' in budget
                      ? 'test mails of this account'
                      : 'this client from this address';
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
