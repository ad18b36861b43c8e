import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
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
import type { CustomersService } from './service.ts';

const tags = ['Customers'];

export async function customersRoutes(
  fastify: FastifyInstance,
  opts: { customers: CustomersService; groups: GroupsService },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { customers, groups } = opts;

  app.post(
    '/api/v1.7/app/:appId/member/:svcUserId/customers',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: { tags, summary: 'Create a customer', params: CustomerPath, body: CustomerBody, response: businessResponses(Customer) },
    },
    async (request) => ok(await customers.create(request.params.appId, request.user.id, request.params.svcUserId, request.body)),
  );

  app.put(
    '/api/v1.7/app/:appId/member/:svcUserId/customer/:customerId',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: { tags, summary: 'Edit a customer', params: CustomerItemPath, body: CustomerBody, response: businessResponses(Customer) },
    },
    async (request) =>
      ok(await customers.edit(request.params.appId, request.user.id, request.params.svcUserId, request.params.customerId, request.body)),
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
    async (request) =>
      ok(await customers.remove(request.params.appId, request.user.id, request.params.svcUserId, request.params.customerId)),
  );

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
    async (request) => ok(await customers.detail(request.params.customerId, request.user.id)),
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customers',
    {
      schema: {
        tags,
        summary: "List customers (svc-user-id a member's id, or 'all'), newest change first",
        params: CustomerPath,
        querystring: ListQuery,
        response: businessResponses(Type.Array(CustomerListItem)),
      },
    },
    async (request) =>
      ok(
        await customers.list(request.params.appId, request.user.id, request.params.svcUserId, page(request.query), {
          keyword: request.query.keyword,
          groupId: request.query.group_id ?? request.query.customer_group_id,
          phone: request.query.phone,
          email: request.query.email,
        }),
      ),
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
    async (request) => ok(await customers.search(request.params.appId, request.user.id, request.query.condition, page(request.query))),
  );

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
      ok(await customers.transferOwners(request.params.appId, request.user.id, request.body.datas, request.body.target_svc_userid)),
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
    async (request) => ok(await customers.transferGroup(request.params.appId, request.user.id, request.body)),
  );

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
    async (request) => ok(await customers.fields.create(request.params.appId, request.user.id, request.body)),
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
    async (request) => ok(await customers.fields.update(request.params.appId, request.user.id, request.params.name, request.body)),
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
    async (request) => ok(await customers.fields.remove(request.params.appId, request.user.id, request.params.name)),
  );

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
    async (request) => ok(await groups.list(request.params.appId, request.user.id, request.query.svc_user_id)),
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
    async (request) => ok(await groups.create(request.params.appId, request.user.id, request.body)),
  );
}
