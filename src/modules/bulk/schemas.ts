import { Type } from '@sinclair/typebox';

export const BulkPath = Type.Object({ appId: Type.String({ maxLength: 64 }), bulkId: Type.String({ maxLength: 64 }) });

/** The list's filters of "all matching", named as the list's query names them. */
export const AllMatching = Type.Object(
  {
    svcUserId: Type.Optional(Type.String({ maxLength: 20, description: "a member's platform user id, or 'all' (the default)" })),
    keyword: Type.Optional(Type.String({ maxLength: 200 })),
    groupId: Type.Optional(
      Type.String({ maxLength: 64, description: "a group's id, '' for customers in no group, 'all' (the default) for any" }),
    ),
    phone: Type.Optional(Type.String({ maxLength: 64 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    activity: Type.Optional(
      Type.String({ maxLength: 32, description: "as the list's activity: any, link_open, file_read, form_fill, site_visit or mail_open" }),
    ),
    period: Type.Optional(Type.String({ maxLength: 8, description: "as the list's period (e.g. 7d); not with since/until" })),
    since: Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'epoch ms, inclusive' })),
    until: Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'epoch ms, exclusive' })),
  },
  { additionalProperties: false },
);

export const BulkBody = Type.Object(
  {
    action: Type.String({ maxLength: 16, description: 'assign, group, campaign, export, delete or enroll' }),
    customerIds: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { description: 'the chosen customers (at most 10,000)' })),
    all: Type.Optional(AllMatching),
    targetSvcUserId: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 20 })])),
    groupId: Type.Optional(Type.String({ maxLength: 64 })),
    campaignId: Type.Optional(Type.String({ maxLength: 64 })),
    sequenceId: Type.Optional(Type.String({ maxLength: 64, description: 'enroll: the sequence' })),
    format: Type.Optional(Type.String({ maxLength: 8, description: 'an export: csv (the default) or xlsx' })),
  },
  { additionalProperties: false },
);

const Failure = Type.Object({ customerId: Type.String(), code: Type.String(), reason: Type.String() });

export const BulkJob = Type.Object({
  id: Type.String(),
  action: Type.String({ description: 'assign, group, campaign, export, delete or enroll' }),
  status: Type.String({ description: 'queued, running, done or failed' }),
  total: Type.Integer({ description: 'customers the job works through, frozen when it was asked for' }),
  processed: Type.Integer(),
  done: Type.Integer({ description: 'customers changed (or already as asked), or exported' }),
  failed: Type.Integer(),
  failures: Type.Object({
    byCode: Type.Record(Type.String(), Type.Integer(), { description: 'failed customers by error code' }),
    first: Type.Array(Failure, { description: 'the first 50 failed customers with their reason' }),
  }),
  allMatching: Type.Boolean(),
  targetSvcUserId: Type.Union([Type.Integer(), Type.Null()]),
  groupId: Type.Union([Type.String(), Type.Null()]),
  campaignId: Type.Union([Type.String(), Type.Null()]),
  sequenceId: Type.Union([Type.String(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()]),
  fileUrl: Type.Union([Type.String(), Type.Null()], { description: "a finished export's file (kept a day)" }),
  error: Type.Union([Type.String(), Type.Null()]),
  createdBy: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
