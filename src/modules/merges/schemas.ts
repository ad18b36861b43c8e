import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Customer, CustomerBody } from '../customers/schemas.ts';

export const MergeBody = Type.Composite(
  [
    Type.Omit(CustomerBody, ['svcUserId']),
    Type.Object({
      merge_user_ids: Type.Optional(
        Type.String({ maxLength: 10000, description: 'ids of the customers merged into the main one, separated by commas (1–100)' }),
      ),
      main_customer_id: Type.Optional(Type.String({ maxLength: 64, description: 'the customer that survives' })),
      merge_target_id: Type.Optional(
        Type.String({ maxLength: 16, description: "the survivor's owner after the merge (default: the main customer's owner)" }),
      ),
    }),
  ],
  {
    description:
      'The customers to merge and, optionally, attribute values for the survivor (snake_case or camelCase, validated as on edit).',
  },
);

export const DuplicatesQuery = Type.Object({
  ...PagingQuery,
  by: Type.Optional(
    Type.String({ maxLength: 16, description: 'phone (default), email (any case) or name_company: what the customers of a set share' }),
  ),
});

export const DuplicateSet = Type.Object({
  by: Type.String(),
  value: Type.String({ description: "the shared value (name_company: 'name / company')" }),
  customers: Type.Array(Customer),
});
