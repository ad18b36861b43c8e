import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { DryRun, DryRunBody, Playbook, PlaybookBody, PlaybookEdit, PlaybookParams, PlaybooksParams, Run, RunsQuery } from './schemas.ts';
import type { PlaybooksService } from './service.ts';

const tags = ['Playbooks'];
const codes = 'playbook_invalid, url_invalid';

/** A project's playbooks (docs/playbooks.md): Master/Admin only. */
export async function playbooksRoutes(fastify: FastifyInstance, opts: { playbooks: PlaybooksService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { playbooks } = opts;

  app.post(
    '/api/v1.7/app/:appId/playbooks',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Make a playbook: when a customer does the trigger and the filters hold, the actions happen (Master/Admin)',
        description: `${codes}, too_many_playbooks. See docs/playbooks.md.`,
        params: PlaybooksParams,
        body: PlaybookBody,
        response: businessResponses(Playbook),
      },
    },
    async (request) => ok(await playbooks.manage.create(actorOf(request), request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/playbooks',
    {
      config: { project: 'manager' },
      schema: { tags, summary: "The project's playbooks", params: PlaybooksParams, response: businessResponses(Type.Array(Playbook)) },
    },
    async (request) => ok(await playbooks.manage.list(actorOf(request))),
  );

  app.get(
    '/api/v1.7/app/:appId/playbook/:playbookId',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'A playbook',
        description: 'playbook_not_found.',
        params: PlaybookParams,
        response: businessResponses(Playbook),
      },
    },
    async (request) => ok(await playbooks.manage.get(actorOf(request), request.params.playbookId)),
  );

  app.put(
    '/api/v1.7/app/:appId/playbook/:playbookId',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Change a playbook: what is given replaces the current (runs made stay)',
        description: `playbook_not_found, ${codes}.`,
        params: PlaybookParams,
        body: PlaybookEdit,
        response: businessResponses(Playbook),
      },
    },
    async (request) => ok(await playbooks.manage.edit(actorOf(request), request.params.playbookId, request.body)),
  );

  app.delete(
    '/api/v1.7/app/:appId/playbook/:playbookId',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Archive a playbook: it acts no more',
        description: 'playbook_not_found.',
        params: PlaybookParams,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => {
      await playbooks.manage.remove(actorOf(request), request.params.playbookId);
      return ok(true as const);
    },
  );
  whatPlaybooksDid(fastify, playbooks);
}

/** What a playbook did (its runs) and would have done (a dry run). */
function whatPlaybooksDid(fastify: FastifyInstance, playbooks: PlaybooksService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/app/:appId/playbook/:playbookId/runs',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary:
          "A playbook's runs, newest first (paged by start_index and count, 50 by default): the customer, the record, what each action did",
        description: 'playbook_not_found.',
        params: PlaybookParams,
        querystring: RunsQuery,
        response: businessResponses(Type.Array(Run)),
      },
    },
    async (request) => ok(await playbooks.manage.runs(actorOf(request), request.params.playbookId, page(request.query, 50))),
  );

  app.post(
    '/api/v1.7/app/:appId/playbook-dry-runs',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'What a playbook (a draft, or a saved one by playbookId) would have done over the last 30 days, doing nothing',
        description: `playbook_not_found, ${codes}.`,
        params: PlaybooksParams,
        body: DryRunBody,
        response: businessResponses(DryRun),
      },
    },
    async (request) => ok(await playbooks.dryRun(actorOf(request), request.body)),
  );
}
