/**
 * The layers of src/, checked by `npm run lint` (dependency-cruiser). What each folder holds and may
 * import is written in its README.md; this file is the part a machine can check.
 *
 *   composition root (src/*.ts, src/wiring/*.ts) → routes → service → repository → src/db
 *
 * A feature module is a folder src/modules/<feature>/ with routes.ts, schemas.ts, service.ts,
 * repository.ts and mapper.ts (and helpers of its own; SQL that outgrows one repository is split by
 * caller into <caller>.repository.ts files). Modules meet only through each other's
 * service.ts; the services are built once, each given the others it needs, in src/services.ts.
 *
 * Paths are relative to the folder depcruise runs in, so the same rules check the fixture tree under
 * test/fixtures/layers (see test/lint/layers.test.ts).
 */

/** A file of any feature module; $1 is the module's name. */
const MODULE = '^src/modules/([^/]+)/';
/** A module's routes: routes.ts, <caller>.routes.ts, and <name>.http.ts, the HTTP plumbing its routes share. */
const ROUTES = '^src/modules/[^/]+/(routes|[^/]+\\.routes|[^/]+\\.http)\\.ts$';
const SCHEMAS = '^src/modules/[^/]+/schemas\\.ts$';
const SERVICE = '^src/modules/[^/]+/service\\.ts$';
/** A module's repositories: repository.ts, and <caller>.repository.ts for the SQL of one kind of caller. */
const REPOSITORY = '^src/modules/[^/]+/(repository|[^/]+\\.repository)\\.ts$';
const MAPPER = '^src/modules/[^/]+/mapper\\.ts$';
/**
 * Files directly in src/: the composition root (services.ts builds the services, app.ts registers
 * the routes), the entry points (server.ts, runtime.ts) and the configuration,
 * context and logger they share; and src/wiring/, the groups of services services.ts builds.
 */
const ROOT = '^src/(wiring/)?[^/]+\\.ts$';
const FASTIFY = ['node_modules/fastify/', 'node_modules/@fastify/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included: a cycle means two files cannot be understood (or moved) apart.',
      from: {},
      to: { circular: true },
    },

    // src/db, src/lib, src/events, src/http: below the modules, never above them.
    {
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'src/db is the database seam: it knows no feature, no HTTP, no events and no wiring.',
      from: { path: '^src/db/' },
      to: { path: ['^src/(modules|http|events|cli|wiring)/', '^src/(app|services|server|runtime)\\.ts$'] },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'src/lib holds plain helpers: they import each other only.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: ['^src/lib/'] },
    },
    {
      name: 'db-through-its-index',
      severity: 'error',
      comment:
        'Everything above src/db reaches it through src/db/index.ts, its public API (prepared reads, caches, ' +
        'bulk writes, page anchors, table types); the speed machinery behind it is its own business.',
      from: { path: '^src/', pathNot: '^src/db/' },
      to: { path: '^src/db/', pathNot: '^src/db/index\\.ts$' },
    },
    {
      name: 'events-below-modules',
      severity: 'error',
      comment: 'The outbox, relay and feed serve every module; they know no module and no HTTP.',
      from: { path: '^src/events/' },
      to: { path: '^src/(modules|http|cli)/' },
    },
    {
      name: 'http-is-plumbing',
      severity: 'error',
      comment:
        'src/http is the HTTP plumbing the routes share (errors, envelope, paging, auth, parsing). It reaches no ' +
        'database and no event, and of the modules only the types of a service (auth asks the accounts service).',
      from: { path: '^src/http/' },
      to: { path: ['^src/(db|events|cli|config)/', ROOT] },
    },
    {
      name: 'http-uses-module-services-as-types',
      severity: 'error',
      comment: 'The services are handed to src/http by the composition root; src/http imports only their types.',
      from: { path: '^src/http/' },
      to: { path: SERVICE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-reaches-services-only',
      severity: 'error',
      comment: 'Of a module, src/http sees only its service.ts.',
      from: { path: '^src/http/' },
      to: { path: '^src/modules/', pathNot: SERVICE },
    },
    {
      name: 'cli-goes-through-the-root',
      severity: 'error',
      comment: 'The CLI builds services with src/services.ts like the server does; it reaches no module directly.',
      from: { path: '^src/cli/' },
      to: { path: '^src/(modules|http)/' },
    },

    // Metrics: built by the runtime, reported to through interfaces.
    {
      name: 'metrics-observes-from-the-side',
      severity: 'error',
      comment:
        'src/metrics counts what it is told through the Observer interfaces and reads the database index and the ' +
        'outbox backlog; it knows no module, no HTTP plumbing and no CLI.',
      from: { path: '^src/metrics/' },
      to: { path: '^src/(modules|http|cli)/' },
    },
    {
      name: 'nothing-below-the-root-imports-metrics',
      severity: 'error',
      comment:
        'Services, repositories, the relay and the database report through interfaces (ctx.observer, DatabaseObserver): ' +
        'only the composition root and the runtime know prom-client and src/metrics.',
      from: { path: '^src/(db|lib|events|http|modules|cli)/' },
      to: { path: ['^src/metrics/', 'node_modules/prom-client/'] },
    },

    // The composition root.
    {
      name: 'root-wires-services-and-routes',
      severity: 'error',
      comment:
        'Outside the modules, a module is reached through its service.ts (built in src/services.ts) or its routes.ts (registered in src/app.ts).',
      from: { path: ROOT },
      to: {
        path: '^src/modules/',
        pathNot: [
          SERVICE,
          ROUTES,
          // The e-mail/SMS adapter of the accounts module: the runtime builds it into the context
          // (it needs the configuration, and tests replace it), so the root imports it.
          '^src/modules/accounts/code-sender\\.ts$',
        ],
      },
    },

    // Between modules.
    {
      name: 'modules-meet-through-services',
      severity: 'error',
      comment:
        "A module reaches another only through that module's service.ts (its public surface: the factory, the " +
        'service type, the row and response types others need, pure domain helpers). Exceptions: the schemas.ts ' +
        'and mapper.ts of another module, with the rules below.',
      from: { path: MODULE },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', SERVICE, SCHEMAS, MAPPER] },
    },
    {
      name: 'shared-schemas-in-the-contract-only',
      severity: 'error',
      comment:
        "Another module's schemas.ts holds TypeBox pieces of the HTTP contract (AppIdParams, Link): only routes.ts " +
        'and schemas.ts, which make the contract, may compose them.',
      from: { path: MODULE, pathNot: ['/routes\\.ts$', '/schemas\\.ts$'] },
      to: { path: SCHEMAS, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'other-mappers-as-types-only',
      severity: 'error',
      comment:
        "Another module's mapper.ts may lend its row and response types (access reads projects' AppRow and " +
        "members' MemberRow), never its code: mapping another module's rows is that module's service's job.",
      from: { path: MODULE },
      to: { path: MAPPER, pathNot: '^src/modules/$1/', dependencyTypesNot: ['type-only'] },
    },

    // Inside a module: routes → service → repository → src/db.
    {
      name: 'routes-call-services',
      severity: 'error',
      comment: 'Routes validate (schemas.ts) and call the service; they run no SQL and write no event.',
      from: { path: ROUTES },
      to: { path: ['^src/(db|events)/', REPOSITORY, MAPPER] },
    },
    {
      name: 'schemas-are-the-contract',
      severity: 'error',
      comment: 'schemas.ts is TypeBox declarations only: no service, no SQL, no mapping.',
      from: { path: SCHEMAS },
      to: { path: ['^src/(db|events)/', SERVICE, REPOSITORY, ROUTES, MAPPER] },
    },
    {
      name: 'repositories-are-reached-by-their-module',
      severity: 'error',
      comment: "A repository is called by its own module's service (and lends row types to its own mapper).",
      from: { path: MODULE, pathNot: [ROUTES, SCHEMAS] },
      to: { path: REPOSITORY, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'repositories-own-the-sql',
      severity: 'error',
      comment:
        'SQL is built in repositories. Other module files import src/db for its types and for what its index ' +
        'exports besides queries (error classification: isUniqueViolation, isTransientConflict).',
      from: { path: '^src/modules/', pathNot: REPOSITORY },
      to: { path: '^src/db/', pathNot: '^src/db/index\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'kysely-values-in-repositories-only',
      severity: 'error',
      comment: "Kysely's builders (sql, expressions) are used in repositories; elsewhere in a module only its types.",
      from: { path: '^src/modules/', pathNot: REPOSITORY },
      to: { path: 'node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'repositories-stay-down',
      severity: 'error',
      comment: 'A repository takes an executor (db or transaction) and returns rows: it knows no service, HTTP or event.',
      from: { path: REPOSITORY },
      to: { path: ['^src/(http|events|config)/', SERVICE, ROUTES, SCHEMAS, ROOT] },
    },
    {
      name: 'mappers-are-pure',
      severity: 'error',
      comment: 'A mapper turns rows into response objects: no service, no route, no SQL (row types from the repository are fine).',
      from: { path: MAPPER },
      to: { path: [SERVICE, ROUTES, '^src/(http|events)/'] },
    },
    {
      name: 'mappers-take-row-types-only',
      severity: 'error',
      comment: 'A mapper may name its repository’s row types, never call it.',
      from: { path: MAPPER },
      to: { path: REPOSITORY, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-never-import-fastify',
      severity: 'error',
      comment: 'Services and everything below them work without HTTP: the CLI, workers and tests call them directly.',
      from: { path: '^src/modules/', pathNot: ROUTES },
      to: { path: FASTIFY },
    },
    {
      name: 'services-never-reach-fastify',
      severity: 'error',
      comment: 'Not through a helper either: nothing a service or repository imports, at any depth, imports Fastify.',
      from: { path: [SERVICE, REPOSITORY] },
      to: { path: FASTIFY, reachable: true },
    },
    {
      name: 'modules-use-error-table-and-paging-of-http',
      severity: 'error',
      comment:
        'Of src/http, module code below the routes uses the error table (errors.ts, error-codes.ts) and paging.ts ' +
        "(the Page a service is asked for); the rest is the routes' plumbing.",
      from: { path: '^src/modules/', pathNot: [ROUTES, SCHEMAS] },
      to: { path: '^src/http/', pathNot: ['^src/http/(errors|error-codes)\\.ts$', '^src/http/paging\\.ts$'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle or a layer broken by types is still broken.
    tsPreCompilationDeps: true,
    // Packages that resolve only through `exports` (the NATS client) resolve as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
