import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Nullable } from '../../http/schema-types.ts';
import { AllMatching } from '../bulk/schemas.ts';

const Id = Type.String({ maxLength: 64 });
const S = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

export const SequenceParams = Type.Object({ appId: Id, sequenceId: Id });
export const VersionParams = Type.Object({ appId: Id, sequenceId: Id, version: Type.Integer({ minimum: 1, maximum: 1_000_000 }) });
export const EnrollmentParams = Type.Object({ appId: Id, enrollmentId: Id });
export const CustomerParams = Type.Object({ appId: Id, customerId: Id });
export const InboundParams = Type.Object({ token: Type.String({ maxLength: 128 }) });

/** The send settings (docs/sequences.md "Send settings"): the fields given change. */
export const SettingsBody = Type.Object(
  {
    timeZone: S(64, "IANA zone of the window when a customer's own (custom field time_zone) is not known"),
    windowStart: S(5, 'HH:mm (default 09:00)'),
    windowEnd: S(5, 'HH:mm, after windowStart (default 17:00)'),
    days: Type.Optional(Type.Array(Type.Integer(), { maxItems: 7, description: 'ISO weekdays, 1 Monday … 7 Sunday (default 1–5)' })),
    dailyCap: Type.Optional(Type.Integer({ description: 'e-mail steps per sending member per day, 1–10,000 (default 200)' })),
    replyAddress: Type.Optional(
      Nullable(Type.String({ maxLength: 320, description: "where customers' replies go; null or '' clears it" })),
    ),
    rotateInboundToken: Type.Optional(
      Type.Boolean({ description: 'true: a new secret for the inbound mail webhook (the former address stops working)' }),
    ),
  },
  { additionalProperties: false },
);

export const Settings = Type.Object({
  timeZone: Type.String(),
  windowStart: Type.String(),
  windowEnd: Type.String(),
  days: Type.Array(Type.Integer()),
  dailyCap: Type.Integer(),
  replyAddress: Nullable(Type.String()),
  inboundUrl: Type.String({ description: 'the inbound mail webhook: give it to the mail provider that receives the reply address' }),
});

const StepBody = Type.Object(
  {
    type: S(16, 'email, manual_email, call or task'),
    waitDays: Type.Optional(Type.Integer({ description: 'business days after the previous step (or enrolment), 0–90' })),
    title: S(10_000, "an e-mail's subject, a task's title: 1–200 characters"),
    html: S(600_000, "an e-mail step's HTML (merge fields such as {{name}}, {{company}}, {{owner_name}}, {{own_link}})"),
    note: S(100_000, 'instructions for a manual e-mail, call or task step: up to 4,000 characters'),
  },
  { additionalProperties: false },
);

/** A sequence as created or changed (a change is a new version). */
export const SequenceBody = Type.Object(
  {
    name: S(10_000, '1–200 characters'),
    deckLinkId: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: 'the deck (a share link of the project) the sequence is about' })),
    ),
    jump: Type.Optional(
      Nullable(
        Type.Object(
          {
            readShare: Type.Optional(Type.Integer({ description: 'share of the deck read, 1–100 %' })),
            toStep: Type.Optional(Type.Integer({ description: 'the index of the step to jump to (1 is the second step)' })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    steps: Type.Optional(Type.Array(StepBody, { maxItems: 100, description: '1–20 steps' })),
  },
  { additionalProperties: false },
);

const Step = Type.Object({
  type: Type.String(),
  waitDays: Type.Integer(),
  title: Type.String(),
  html: Nullable(Type.String()),
  note: Nullable(Type.String()),
});
const Jump = Type.Object({ readShare: Type.Integer(), toStep: Type.Integer() });
const Counts = Type.Object({ active: Type.Integer(), paused: Type.Integer(), finished: Type.Integer(), exited: Type.Integer() });

export const Sequence = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the current version' }),
  deckLinkId: Nullable(Type.String()),
  jump: Type.Union([Jump, Type.Null()]),
  steps: Type.Array(Step),
  enrollments: Counts,
  createdBy: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const Version = Type.Object({
  sequenceId: Type.String(),
  version: Type.Integer(),
  deckLinkId: Nullable(Type.String()),
  jump: Type.Union([Jump, Type.Null()]),
  steps: Type.Array(Step),
  createdBy: Type.Integer(),
  createdAt: Type.String(),
});

/** Customers to enrol, as a bulk job: chosen ids, or all matching the list's filters. */
export const EnrollBody = Type.Object(
  {
    customer_ids: Type.Optional(
      Type.Union([Type.String({ maxLength: 10_000 * 65 }), Type.Array(Type.String({ maxLength: 64 }))], {
        // No maxItems: more than 10,000 is the service's bulk_too_many, as for the list's bulk actions; the body limit bounds the rest.
        description: 'the chosen customers (at most 10,000): an array, or comma-separated as form fields send them',
      }),
    ),
    all: Type.Optional(AllMatching),
  },
  { additionalProperties: false },
);

export const EnrollmentsQuery = Type.Object({
  ...PagingQuery,
  state: Type.Optional(Type.String({ maxLength: 16, description: 'active, paused, finished or exited (default all)' })),
});

export const ExitBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 16, description: 'removed (the default) or replied' })) },
  { additionalProperties: false },
);

export const Enrollment = Type.Object({
  id: Type.String(),
  sequenceId: Type.String(),
  sequenceName: Nullable(Type.String()),
  version: Type.Integer({ description: 'the version the customer runs' }),
  customerId: Type.String(),
  customerName: Nullable(Type.String({ description: "the customer's name on a sequence's page; null on a customer's own" })),
  ownerId: Type.Integer({ description: 'the sending member' }),
  state: Type.String({ description: 'active, paused, finished or exited' }),
  exitReason: Nullable(Type.String()),
  step: Type.Integer({ description: 'index of the next step to run' }),
  dueAt: Nullable(Type.String()),
  ownLinkId: Nullable(Type.String()),
  enrolledBy: Type.Integer(),
  enrolledAt: Type.String(),
  updatedAt: Type.String(),
  endedAt: Nullable(Type.String()),
});

const FunnelStep = Type.Object({
  step: Type.Integer(),
  type: Type.String(),
  title: Type.String(),
  reached: Type.Integer({ description: 'runs of the step recorded, whatever the outcome' }),
  sent: Type.Integer({ description: 'e-mails queued or sent' }),
  opened: Type.Integer({ description: "of those, opened by a person (the campaigns' tracking)" }),
  clicked: Type.Integer(),
  replied: Type.Integer({ description: 'customers who replied after this step, before the next ran' }),
  tasks: Type.Integer({ description: 'tasks made (calls, manual e-mails, tasks)' }),
  skipped: Type.Integer(),
});

export const Funnel = Type.Object({
  enrolled: Type.Integer(),
  active: Type.Integer(),
  paused: Type.Integer(),
  finished: Type.Integer(),
  exited: Type.Object({ total: Type.Integer(), byReason: Type.Record(Type.String(), Type.Integer()) }),
  steps: Type.Array(FunnelStep, { description: "the current version's steps, by index (counts across versions)" }),
});

export const Exited = Type.Object({ exited: Type.Integer({ description: 'enrollments that exited' }) });
