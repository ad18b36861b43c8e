import { type Static, type TOptional, type TString, Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { ATTRIBUTES, PLAIN_FIELDS } from './attributes.ts';
import { NullableString, NullableInteger } from '../../http/schema-types.ts';
import { ScoreFields, type ScoreReason } from '../scoring/schemas.ts';

/** A reason of a customer's engagement score as the lists and the detail show it (the scoring module makes them). */
export type ScoreReasonOut = Static<typeof ScoreReason>;

const S = NullableString;
const I = NullableInteger;

export const Customer = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: S,
  headportraitUrl: S,
  company: S,
  title: S,
  phone: S,
  email: S,
  svcUserId: Type.String(),
  groupId: S,
  sex: I,
  ageState: I,
  fixedPhone: S,
  industry: S,
  province: S,
  city: S,
  county: S,
  address: S,
  intentionality: I,
  grade: I,
  leadSource: S,
  createWay: I,
  platform: S,
  from: S,
  utmMedium: S,
  utmCampaign: S,
  utmContent: S,
  buyedKeyword: S,
  searchKeyword: S,
  promoterId: S,
  fromContentTitle: S,
  fromContentLink: S,
  fromProvince: S,
  fromCity: S,
  getWay: I,
  source: S,
  allocationData: Type.Object({ allocationSvcUserId: S }),
  status: Type.Integer(),
  whetherMerge: Type.Integer(),
  mergedCustomerId: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  exts: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Array(Type.String())]), {
      description: "beyond the interface: the project's custom field values by field name (docs/metadata.md); absent when there are none",
    }),
  ),
  score: Type.Optional({ ...ScoreFields.score, description: `${ScoreFields.score.description ?? ''}; on the detail and list items` }),
  scoreReasons: Type.Optional(ScoreFields.scoreReasons),
});

export const CustomerListItem = Type.Composite([
  Customer,
  Type.Object({
    isNew: Type.Integer(),
    groupName: Type.String(),
    newCount: Type.Integer(),
    lastActivityAt: Type.Union([Type.String(), Type.Null()], {
      description: "the customer's latest activity (yyyy-MM-dd HH:mm:ss, as updatedAt); null for none (an extension)",
    }),
    ...ScoreFields,
  }),
]);

/** Every documented parameter, snake_case and camelCase, as text; the metadata engine checks values. */
const params: Record<string, TOptional<TString>> = {};
for (const spec of [...ATTRIBUTES, ...PLAIN_FIELDS]) {
  params[spec.param] = Type.Optional(Type.String({ maxLength: 10000 }));
  params[spec.name] = Type.Optional(Type.String({ maxLength: 10000 }));
}
params.svcUserId = Type.Optional(Type.String({ maxLength: 10000, description: 'owning sales user id (default: the acting member)' }));
const exts = Type.Optional(
  Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String({ maxLength: 100000 })], {
    description: 'custom field values by field name (an object, or its JSON text in a form); a field may also be sent as its own key',
  }),
);

export const CustomerBody = Type.Object(
  { ...params, exts },
  {
    description:
      'Customer attributes (snake_case or camelCase). Which are required, their options and formats follow the project metadata.',
  },
);

export const CustomerPath = Type.Object({ appId: Type.String({ maxLength: 64 }), svcUserId: Type.String({ maxLength: 64 }) });
export const CustomerItemPath = Type.Object({
  appId: Type.String({ maxLength: 64 }),
  svcUserId: Type.String({ maxLength: 64 }),
  customerId: Type.String({ maxLength: 64 }),
});
export const CustomerIdPath = Type.Object({ customerId: Type.String({ maxLength: 64 }) });

/** The latest time a JavaScript date holds (epoch ms): later values are no time. */
const LATEST_TIME = 8_640_000_000_000_000;

export const ListQuery = Type.Object({
  ...PagingQuery,
  keyword: Type.Optional(
    Type.String({ maxLength: 64, description: 'only customers whose name, company, mobile number or e-mail contains it (any case)' }),
  ),
  group_id: Type.Optional(
    Type.String({ maxLength: 64, description: "only customers of this group ('' for customers in no group, 'all' for every group)" }),
  ),
  customer_group_id: Type.Optional(
    Type.String({ maxLength: 64, description: "the same as group_id (the original platform's name; its default 'all' is every group)" }),
  ),
  phone: Type.Optional(Type.String({ maxLength: 32, description: 'only customers with this mobile number' })),
  email: Type.Optional(Type.String({ maxLength: 254, description: 'only customers with this e-mail address (any case)' })),
  sort: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'the order: updated (last change, the default), created, name, last_activity or score; ties broken by id (sort_invalid otherwise)',
    }),
  ),
  order: Type.Optional(Type.String({ maxLength: 8, description: 'desc (the default) or asc (the default for name)' })),
  activity: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'only customers with activity of this kind in the period: any, link_open, file_read, form_fill, site_visit or mail_open (activity_invalid otherwise)',
    }),
  ),
  period: Type.Optional(
    Type.String({
      maxLength: 8,
      description: "the activity's period back from now: 1h to 8784h, or 1d to 366d (e.g. 7d); not with since/until",
    }),
  ),
  since: Type.Optional(
    Type.Integer({ minimum: 0, maximum: LATEST_TIME, description: "the activity's period from this time (epoch ms, inclusive)" }),
  ),
  until: Type.Optional(
    Type.Integer({ minimum: 0, maximum: LATEST_TIME, description: "the activity's period up to this time (epoch ms, exclusive)" }),
  ),
});

/** A custom field's definition (POST …/metadata/customer; PUT takes the same, every key optional). */
const flagParam = (description: string) =>
  Type.Optional(Type.Union([Type.Boolean(), Type.Integer({ minimum: 0, maximum: 1 }), Type.String({ maxLength: 5 })], { description }));
export const FieldBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 64, description: 'the field name: a letter, then letters, digits or _ (POST only)' })),
  label: Type.Optional(Type.String({ maxLength: 1000, description: 'the title shown in forms (1–64 characters)' })),
  title: Type.Optional(Type.String({ maxLength: 1000, description: 'the same as label' })),
  type: Type.Optional(Type.String({ maxLength: 32, description: 'text, number, date, option or multiOption (fixed once created)' })),
  required: flagParam('required on create (and may not be blanked on edit)'),
  unique: flagParam('no two live customers share a value; refused while some do (field_duplicates)'),
  readonly: flagParam('set on create and by ingestion only'),
  searchable: flagParam("the customer list's keyword also looks in its values"),
  visiable: flagParam('shown in the console (the interface spelling)'),
  options: Type.Optional(
    Type.Union([Type.Array(Type.Unknown(), { maxItems: 200 }), Type.String({ maxLength: 100000 })], {
      description: 'option and multiOption: [{"value","label"}] or plain values, in display order (a JSON string in a form)',
    }),
  ),
  index: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 10000 }), Type.String({ maxLength: 6 })], { description: 'position in the form' }),
  ),
});
export const FieldPath = Type.Object({ appId: Type.String({ maxLength: 64 }), name: Type.String({ maxLength: 64 }) });
export const SearchQuery = Type.Object({
  ...PagingQuery,
  condition: Type.Optional(Type.String({ maxLength: 254, description: 'mobile number or e-mail' })),
});

export const OwnerTransferBody = Type.Object({
  datas: Type.Optional(
    Type.Union([Type.String({ maxLength: 500000 }), Type.Array(Type.Unknown(), { maxItems: 1000 })], {
      description: 'JSON array of {customerId, srouceGroupId, srouceSvcUserId} (a JSON string in a form field, or an array in a JSON body)',
    }),
  ),
  target_svc_userid: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
});

export const GroupTransferBody = Type.Object({
  source_group_id: Type.Optional(Type.String({ maxLength: 64 })),
  target_group_id: Type.Optional(Type.String({ maxLength: 64 })),
  customer_ids: Type.Optional(Type.String({ maxLength: 100000, description: 'customer ids separated by commas' })),
});

export const Group = Type.Object({ id: Type.String(), name: Type.String(), customerCount: Type.Integer(), createdAt: Type.String() });
export const GroupsQuery = Type.Object({ svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) });
export const GroupBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
});
