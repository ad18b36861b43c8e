import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import type { GroupsService } from '../groups/service.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { MetadataItem } from '../metadata/schemas.ts';
import {
  Customer,
  CustomerBody,
  CustomerIdPath,
  CustomerItemPath,
  CustomerListItem,
  CustomerPath,
  FieldBody,
  FieldPath,
  Group,
  GroupBody,
  GroupTransferBody,
  GroupsQuery,
  ListQuery,
  OwnerTransferBody,
  SearchQuery,
} from './schemas.ts';
import type { CustomerApi, CustomersService } from './service.ts';

const tags = ['Customers'];

/** The customer API's routes, the custom fields' and the groups' (docs/interface.md §9). */
export async function customersRoutes(
  fastify: FastifyInstance,
  opts: { customers: CustomersService; groups: GroupsService },
): Promise<void> {
  const { api, fields } = opts.customers;
  customerWriteRoutes(fastify, api);
  customerReadRoutes(fastify, api);
  transferRoutes(fastify, api);
  fieldRoutes(fastify, fields);
  groupRoutes(fastify, opts.groups);
}

/** Create, edit and delete, as the path's member. */
function customerWriteRoutes(fastify: FastifyInstance, api: CustomerApi): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/member/:svcUserId/customers',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: { tags, summary: 'Create a customer', params: CustomerPath, body: CustomerBody, response: businessResponses(Customer) },
    },
    async (request) => ok(await api.create(actorOf(request), { ownerId: request.params.svcUserId, body: request.body })),
  );

  app.put(
    '/api/v1.7/app/:appId/member/:svcUserId/customer/:customerId',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: { tags, summary: 'Edit a customer', params: CustomerItemPath, body: CustomerBody, response: businessResponses(Customer) },
    },
    async (request) => {
      const { svcUserId, customerId } = request.params;
      return ok(await api.edit(actorOf(request), { ownerId: svcUserId, customerId, body: request.body }));
    },
  );

  app.delete(
    '/api/v1.7/app/:appId/member/:svcUserId/customer/:customerId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Delete a customer (soft: status 0; extension)',
        params: CustomerItemPath,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await api.remove(actorOf(request), { ownerId: request.params.svcUserId, customerId: request.params.customerId })),
  );
}

/** The detail, the list and the search. */
function customerReadRoutes(fastify: FastifyInstance, api: CustomerApi): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/customer/:customerId/detail',
    {
      schema: {
        tags,
        summary: "Customer detail (the owner's view clears isNew and newCount)",
        params: CustomerIdPath,
        response: businessResponses(Customer),
      },
    },
    async (request) => ok(await api.detail(request.user.id, { customerId: request.params.customerId })),
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customers',
    {
      schema: {
        tags,
        summary: "List customers (svc-user-id a member's id, or 'all'): sorted, filtered, the total in X-Total-Count",
        params: CustomerPath,
        querystring: ListQuery,
        response: businessResponses(Type.Array(CustomerListItem)),
      },
    },
    async (request, reply) => {
      const { query } = request;
      const params = {
        keyword: query.keyword,
        groupId: groupFilter(query.group_id ?? query.customer_group_id),
        phone: query.phone,
        email: query.email,
        sort: query.sort,
        order: query.order,
        activity: query.activity,
        period: query.period,
        since: query.since,
        until: query.until,
      };
      const listed = await api.list(actorOf(request), { ownerId: request.params.svcUserId, page: page(query), params });
      // The number of customers that match, whatever the page (docs/customers.md).
      void reply.header('X-Total-Count', String(listed.total));
      if (listed.capped) void reply.header('X-Total-Count-Capped', 'true');
      return ok(listed.items);
    },
  );

  app.get(
    '/api/v1.7/app/:appId/customer/appSearch',
    {
      schema: {
        tags,
        summary: 'Search customers by exact mobile number or e-mail (any case)',
        params: AppIdParams,
        querystring: SearchQuery,
        response: businessResponses(Type.Array(CustomerListItem)),
      },
    },
    async (request) => ok(await api.search(actorOf(request), { condition: request.query.condition, page: page(request.query) })),
  );
}

/** Owner and group transfers. */
function transferRoutes(fastify: FastifyInstance, api: CustomerApi): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/customer/batch-app-member-transfers',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: {
        tags,
        summary: 'Transfer customers to another owner (all or nothing)',
        params: AppIdParams,
        body: OwnerTransferBody,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) =>
      ok(await api.transferOwners(actorOf(request), { datas: request.body.datas, target: request.body.target_svc_userid })),
  );

  app.post(
    '/api/v1.7/app/:appId/customer/group-transfers',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: {
        tags,
        summary: 'Move customers between groups of their owner (all or nothing)',
        params: AppIdParams,
        body: GroupTransferBody,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await api.transferGroup(actorOf(request), request.body)),
  );
}

/** The project's custom customer fields (docs/metadata.md). */
function fieldRoutes(fastify: FastifyInstance, fields: CustomersService['fields']): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/metadata/customer',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: "Add a custom customer field to the project's form (Master/Admin; extension)",
        params: AppIdParams,
        body: FieldBody,
        response: businessResponses(MetadataItem),
      },
    },
    async (request) => ok(await fields.create(actorOf(request), request.body)),
  );

  app.put(
    '/api/v1.7/app/:appId/metadata/customer/:name',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: "Edit a customer field: a custom one, or a built-in one's label, required flag, options, order (Master/Admin; extension)",
        params: FieldPath,
        body: FieldBody,
        response: businessResponses(MetadataItem),
      },
    },
    async (request) => ok(await fields.update(actorOf(request), { name: request.params.name, input: request.body })),
  );

  app.delete(
    '/api/v1.7/app/:appId/metadata/customer/:name',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Remove a custom customer field from the form; its values are kept (Master/Admin; extension)',
        params: FieldPath,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await fields.remove(actorOf(request), { name: request.params.name })),
  );
}

/** The customer groups (the groups module's service). */
function groupRoutes(fastify: FastifyInstance, groups: GroupsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/app/:appId/customer-groups',
    {
      schema: {
        tags,
        summary: "List customer groups (a member's, or for Master/Admin without svc_user_id all)",
        params: AppIdParams,
        querystring: GroupsQuery,
        response: businessResponses(Type.Array(Group)),
      },
    },
    async (request) => ok(await groups.list(actorOf(request), { svcUserId: request.query.svc_user_id })),
  );

  app.post(
    '/api/v1.7/app/:appId/customer-groups',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Create a customer group (extension)',
        params: AppIdParams,
        body: GroupBody,
        response: businessResponses(Group),
      },
    },
    async (request) => ok(await groups.create(actorOf(request), request.body)),
  );
}

/** The list's group filter: `all` (the original platform's default for every group) filters nothing. */
function groupFilter(groupId: string | undefined): string | undefined {
  return groupId === 'all' ? undefined : groupId;
}
