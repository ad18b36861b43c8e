import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { businessResponses, ok } from '../../http/envelope.ts';
import type { ProjectsService } from './service.ts';
import { AppIdParams, CreatedProject, Project, ProjectBody, ProjectWithSecret, RotatedSecret } from './schemas.ts';

const tags = ['Projects'];

export async function projectsRoutes(fastify: FastifyInstance, opts: { projects: ProjectsService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { projects } = opts;

  app.post(
    '/api/v1.7/apps',
    {
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
      schema: {
        tags,
        summary: 'Edit a project (Master/Admin)',
        params: AppIdParams,
        body: ProjectBody,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await projects.edit(request.params.appId, request.user.id, request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId/secret-rotations',
    {
      schema: {
        tags,
        summary: "Rotate the project's secret (Master/Admin): a new one at once, the old one valid 24 hours more",
        params: AppIdParams,
        response: businessResponses(RotatedSecret),
      },
    },
    async (request) => ok(await projects.rotateSecret(request.params.appId, request.user.id)),
  );

  app.get(
    '/api/v1.7/app/:appId',
    { schema: { tags, summary: 'Project detail (members), without secret', params: AppIdParams, response: businessResponses(Project) } },
    async (request) => ok(await projects.detail(request.params.appId, request.user.id)),
  );

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
