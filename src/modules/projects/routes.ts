import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import type { ProjectsService } from './service.ts';
import { AppIdParams, CreatedProject, Project, ProjectBody, ProjectWithSecret, RotatedSecret, SiteSettings } from './schemas.ts';

const tags = ['Projects'];

export async function projectsRoutes(fastify: FastifyInstance, opts: { projects: ProjectsService }): Promise<void> {
  projectRoutes(fastify, opts.projects);
  siteRoutes(fastify, opts.projects);
  ownProjectRoutes(fastify, opts.projects);
}

/** Projects themselves: create, edit, detail, the secret's rotation. */
function projectRoutes(fastify: FastifyInstance, projects: ProjectsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1.7/apps',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: 'Create a project; the caller becomes its Master',
        body: ProjectBody,
        response: businessResponses(CreatedProject),
      },
    },
    async (request) => ok(await projects.create(request.user.id, request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId',
    {
      bodyLimit: BODY_LIMITS.default,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Edit a project (Master/Admin)',
        description:
          'Beyond the interface: `site_origins`, the origins the site snippet may send from, comma-separated (https://shop.example.com, ' +
          "http://localhost:8080); '' clears them. `share_domain`, the project's own host name for its links, mail tracking and " +
          "site snippet (share.example.com; '' clears it). Failures: name_invalid, description_invalid, svc_user_id_invalid, " +
          'site_origins_invalid, share_domain_invalid, share_domain_taken.',
        params: AppIdParams,
        body: ProjectBody,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await projects.edit(actorOf(request), request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId/secret-rotations',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "Rotate the project's secret (Master/Admin): a new one at once, the old one valid 24 hours more",
        params: AppIdParams,
        response: businessResponses(RotatedSecret),
      },
    },
    async (request) => ok(await projects.rotateSecret(actorOf(request))),
  );

  app.get(
    '/api/v1.7/app/:appId',
    { schema: { tags, summary: 'Project detail (members), without secret', params: AppIdParams, response: businessResponses(Project) } },
    async (request) => ok(projects.detail(actorOf(request))),
  );
}

/** A project's site-tracking settings (Master/Admin). */
function siteRoutes(fastify: FastifyInstance, projects: ProjectsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/app/:appId/site',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "The project's site tracking settings (Master/Admin): site key, origins, the site secret and the snippet",
        description: 'docs/site-tracking.md. The site secret signs customer ids for `identify`: HMAC-SHA256(siteSecret, customerId), hex.',
        params: AppIdParams,
        response: businessResponses(SiteSettings),
      },
    },
    async (request) => ok(await projects.siteSettings(actorOf(request))),
  );

  app.post(
    '/api/v1.7/app/:appId/site/key',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Make a new site key (Master/Admin): pages carrying the old one are refused from now on',
        params: AppIdParams,
        response: businessResponses(SiteSettings),
      },
    },
    async (request) => ok(await projects.rotateSite(actorOf(request), { what: 'key' })),
  );

  app.post(
    '/api/v1.7/app/:appId/site/secret',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Make a new site secret (Master/Admin): customer ids signed with the old one no longer identify',
        params: AppIdParams,
        response: businessResponses(SiteSettings),
      },
    },
    async (request) => ok(await projects.rotateSite(actorOf(request), { what: 'secret' })),
  );
}

/** The caller's own projects. */
function ownProjectRoutes(fastify: FastifyInstance, projects: ProjectsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/my-apps',
    {
      schema: {
        tags,
        summary: "The caller's projects; secret filled for Master/Admin, null for Sales",
        response: businessResponses(Type.Array(ProjectWithSecret)),
      },
    },
    async (request) => ok(await projects.mine(request.user.id)),
  );
}
