import { readFileSync } from 'node:fs';
import http from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import { registerAuth } from './http/auth.ts';
import { BODY_LIMITS, recordBodyLimits, registerBodyGuards } from './http/body-limits.ts';
import { registerConsole } from './http/console.ts';
import { registerDocs } from './http/docs.ts';
import { frameworkError, registerErrorHandler } from './http/error-handler.ts';
import { accessDenied, overloaded } from './http/errors.ts';
import underPressure from '@fastify/under-pressure';
import { registerNotFound } from './http/not-found.ts';
import { registerParameterParsing } from './http/params.ts';
import { registerRateLimits } from './http/rate-limits.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerCors } from './http/cors.ts';
import { registerShareHosts } from './http/share-hosts.ts';
import { LazyChildLogger, redactUrl } from './logger.ts';
import { accountsRoutes } from './modules/accounts/routes.ts';
import { behaviourRoutes } from './modules/behaviour/routes.ts';
import { historiesRoutes } from './modules/histories/routes.ts';
import { ingestRoutes } from './modules/ingest/routes.ts';
import { customersRoutes } from './modules/customers/routes.ts';
import { erasureRoutes } from './modules/erasure/routes.ts';
import { mergesRoutes } from './modules/merges/routes.ts';
import { dataOpsRoutes } from './modules/dataops/routes.ts';
import { bulkRoutes } from './modules/bulk/routes.ts';
import { tasksRoutes } from './modules/tasks/routes.ts';
import { alertsRoutes } from './modules/alerts/routes.ts';
import { playbooksRoutes } from './modules/playbooks/routes.ts';
import { membersRoutes } from './modules/members/routes.ts';
import { metadataRoutes } from './modules/metadata/routes.ts';
import { logoRoutes } from './modules/projects/logo.routes.ts';
import { projectsRoutes } from './modules/projects/routes.ts';
import { tlsRoutes } from './modules/projects/tls.routes.ts';
import { webhooksRoutes } from './modules/webhooks/routes.ts';
import { clientsRoutes } from './modules/clients/routes.ts';
import { auditRoutes } from './modules/audit/routes.ts';
import { liveRoutes } from './modules/live/routes.ts';
import { filesRoutes } from './modules/files/routes.ts';
import { linksRoutes } from './modules/links/routes.ts';
import { roomsRoutes } from './modules/rooms/routes.ts';
import { campaignsRoutes } from './modules/campaigns/routes.ts';
import { loadSiteScript, loadViewerScript } from './lib/viewer-script.ts';
import { siteRoutes } from './modules/site/routes.ts';
import { scoringRoutes } from './modules/scoring/routes.ts';
import { sequencesRoutes } from './modules/sequences/routes.ts';
import type { Services } from './services.ts';
import type { Metrics } from './metrics/metrics.ts';
import { UNMATCHED_ROUTE } from './metrics/metrics.ts';
import { bearerMatches } from './metrics/serve.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Retry-After of a request refused under pressure. */
const OVERLOADED_RETRY_SECONDS = 5;
/** How often the event-loop lag is sampled. */
const PRESSURE_SAMPLE_MS = 1000;

/** TRUST_PROXY for Fastify: a number of hops becomes the function proxy-addr would make of it (Fastify's types take no number). */
function trustProxyOption(setting: boolean | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

/** The Fastify instance and its server: timeouts, logger, body limit, proxy trust, parsing and routing options. */
function createFastify(ctx: AppContext): FastifyInstance {
  const { headersTimeout, idleTimeout } = ctx.config;
  return Fastify({
    // Slow or silent clients cannot hold connections: headers within HEADERS_TIMEOUT, and no
    // connection silent (between requests or inside one) for longer than IDLE_TIMEOUT. Node checks
    // the headers deadline every connectionsCheckingInterval (30 s by default), hence the server is
    // made here. A slow upload that keeps sending is not cut off.
    serverFactory: (handler) => {
      const server = http.createServer(
        {
          headersTimeout: headersTimeout * 1000,
          requestTimeout: 0,
          connectionsCheckingInterval: Math.min(1000, headersTimeout * 500),
          keepAliveTimeout: idleTimeout * 1000,
        },
        handler,
      );
      server.timeout = idleTimeout * 1000;
      return server;
    },
    loggerInstance: ctx.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMITS.default,
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkError,
    childLoggerFactory: (logger, bindings, options) =>
      new LazyChildLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger,
  });
}

/**
 * Before the event loop drowns: past MAX_EVENT_LOOP_DELAY, requests are refused at once (503
 * overloaded, Retry-After) instead of waiting in a queue they would time out in.
 * Starting (loading and compiling) blocks the loop too: lag measured before the app has been
 * ready for two samples is not load, and refuses nothing.
 */
async function registerLoadShedding(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (ctx.config.maxEventLoopDelay <= 0) return;
  let readyAt = Infinity;
  app.addHook('onReady', async () => {
    readyAt = performance.now();
  });
  await app.register(underPressure, {
    maxEventLoopDelay: ctx.config.maxEventLoopDelay,
    sampleInterval: PRESSURE_SAMPLE_MS,
    // A refusal is thrown, never sent here: under-pressure goes on with the request once the handler
    // returns, so a reply sent by the handler would still run the route (its work done behind a 503).
    // The error handler answers the thrown error and the route never runs.
    pressureHandler: async (request, _reply, type, value) => {
      if (performance.now() - readyAt < 2 * PRESSURE_SAMPLE_MS) return;
      request.log.warn({ type, value }, 'under pressure: refusing requests');
      throw overloaded(OVERLOADED_RETRY_SECONDS, 'The server is overloaded; try again shortly');
    },
  });
}

/** The request log line and, with metrics, each answer counted by route. */
function registerRequestAccounting(app: FastifyInstance, ctx: AppContext, metrics: Metrics | null): void {
  // One line per request, with the URL redacted (access_token may ride in the query). Not even
  // registered when info lines are off: the hook and the redaction cost every request.
  if (ctx.logger.isLevelEnabled('info')) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    });
  }

  if (metrics) {
    // By route template (`/api/v1.7/app/:appId`), never the raw URL: one series per route, whatever the ids.
    app.addHook('onResponse', async (request, reply) => {
      metrics.request(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    });
  }
}

/** `/healthz`, `/readyz` and, on this port, `/metrics`. */
function registerOperations(app: FastifyInstance, ctx: AppContext, metrics: Metrics | null): void {
  app.get(
    '/healthz',
    { config: { limitBy: 'none' }, schema: { tags: ['Operations'], summary: 'Liveness: 200 when the database answers' } },
    async (_request, reply) => {
      try {
        await ctx.database.ping();
        return { status: 'ok' };
      } catch {
        return reply.code(503).send({ status: 'unavailable' });
      }
    },
  );

  app.get(
    '/readyz',
    {
      config: { limitBy: 'none' },
      schema: { tags: ['Operations'], summary: 'Readiness: 200 when the database answers and has every migration of this build' },
    },
    async (_request, reply) => {
      let pending: string[];
      try {
        pending = await ctx.database.pendingMigrations();
      } catch {
        return reply.code(503).send({ status: 'unavailable', reason: 'database_unreachable' });
      }
      if (pending.length > 0) return reply.code(503).send({ status: 'unavailable', reason: 'migrations_pending', pending });
      return { status: 'ready' };
    },
  );

  // The metrics, on this port only with the token, and only when they have no port of their own.
  const token = ctx.config.metricsToken;
  if (metrics && token !== undefined && ctx.config.metricsPort === undefined) {
    app.get('/metrics', { config: { limitBy: 'none' }, schema: { hide: true } }, async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) throw accessDenied('A valid metrics token is required');
      let text: string;
      try {
        text = await metrics.text();
      } catch (err) {
        // Under WORKERS, a worker that is still starting has not answered the primary.
        request.log.warn({ err }, 'metrics could not be collected');
        return reply.code(503).send({ status: 'unavailable' });
      }
      return reply.type(metrics.contentType).send(text);
    });
  }
}

/** Every module's routes, then the console; the console's OAuth client once the app is ready. */
async function registerModules(app: FastifyInstance, ctx: AppContext, services: Services): Promise<void> {
  await app.register(accountsRoutes, {
    accounts: services.accounts,
    version: pkg.version,
    publicBaseUrl: ctx.config.publicBaseUrl,
    refreshTokenTtl: ctx.config.refreshTokenTtl,
  });
  await app.register(projectsRoutes, { projects: services.projects });
  await app.register(logoRoutes, { logos: services.logos });
  await app.register(tlsRoutes, { projects: services.projects, from: ctx.config.tlsAskFrom });
  await app.register(membersRoutes, {
    members: services.members,
    session: {
      memberPass: services.accounts.memberPass,
      refreshTokenTtl: ctx.config.refreshTokenTtl,
      publicBaseUrl: ctx.config.publicBaseUrl,
    },
  });
  await app.register(metadataRoutes, { metadata: services.metadata });
  await app.register(customersRoutes, { customers: services.customers, groups: services.groups });
  await app.register(mergesRoutes, { merges: services.merges });
  await app.register(erasureRoutes, { erasure: services.erasure });
  await app.register(dataOpsRoutes, { dataops: services.dataops });
  await app.register(bulkRoutes, { bulk: services.bulk });
  await app.register(sequencesRoutes, { sequences: services.sequences, bulk: services.bulk });
  await app.register(tasksRoutes, { tasks: services.tasks });
  await app.register(alertsRoutes, { alerts: services.alerts });
  await app.register(playbooksRoutes, { playbooks: services.playbooks });
  await app.register(ingestRoutes, { ingest: services.ingest });
  await app.register(historiesRoutes, { histories: services.histories });
  await app.register(behaviourRoutes, { behaviour: services.behaviour });
  await app.register(scoringRoutes, { scoring: services.scoring });
  await app.register(webhooksRoutes, { webhooks: services.webhooks, channels: services.channels });
  await app.register(clientsRoutes, { clients: services.clients, adminUserIds: ctx.config.adminUserIds });
  await app.register(auditRoutes, { audit: services.audit });
  // A heartbeat well inside IDLE_TIMEOUT, so a quiet stream's connection is never taken for idle.
  await app.register(liveRoutes, { live: services.live, heartbeatMs: Math.min(15_000, (ctx.config.idleTimeout * 1000) / 2) });
  await app.register(filesRoutes, { files: services.files });
  await app.register(roomsRoutes, { rooms: services.rooms });
  await app.register(linksRoutes, {
    links: services.links,
    accounts: services.accounts,
    script: loadViewerScript(),
    secureCookies: ctx.config.publicBaseUrl.startsWith('https:'),
  });
  await app.register(siteRoutes, { site: services.site, status: services.siteStatus, script: loadSiteScript() });
  await app.register(campaignsRoutes, { campaigns: services.campaigns, tracking: services.campaignTracking });
  await registerConsole(app, ctx.config.consoleDir, ctx.logger as FastifyBaseLogger);
  // The console's own OAuth client, made by whichever process starts first (idempotent).
  app.addHook('onReady', async () => {
    await services.clients.ensureConsoleClient();
  });
}

/**
 * Builds the HTTP app: plugins → conventions → modules → 404 and error handlers. With `ctx.metrics`
 * (METRICS_TOKEN set) every answer is counted, and `/metrics` is served here unless METRICS_PORT is set.
 */
export async function buildApp(ctx: AppContext & { readonly metrics?: Metrics | null }, services: Services): Promise<FastifyInstance> {
  const app = createFastify(ctx);
  const metrics = ctx.metrics ?? null;
  recordBodyLimits(app);
  registerSecurityHeaders(app);
  // A project's share domain reaches its public pages alone: before CORS, the token check and the body.
  registerShareHosts(app, services.projects.shareDomains.projectOfHost);
  // Before the token check: a preflight carries no token, and is answered here.
  await registerCors(app, ctx.config.corsOrigins);
  await registerLoadShedding(app, ctx);
  registerRequestAccounting(app, ctx, metrics);
  registerErrorHandler(app);
  registerNotFound(app);
  await registerParameterParsing(app);
  await registerRateLimits(
    app,
    { ...ctx.config.rateLimits, redisUrl: ctx.config.redisUrl, redisPrefix: ctx.config.redisPrefix },
    ctx.logger as FastifyBaseLogger,
  );
  registerAuth(app, services.accounts, services.access);
  registerBodyGuards(app, { minBytesPerSecond: ctx.config.bodyMinRate, windowSeconds: ctx.config.bodyRateWindow });
  await registerDocs(app, pkg.version);

  registerOperations(app, ctx, metrics);
  await registerModules(app, ctx, services);
  return app;
}
