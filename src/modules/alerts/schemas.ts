import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Nullable, NullableString } from '../../http/schema-types.ts';

const signalsDescription = 'comma list of deck_opened, deck_read, revisit, forward, hot_lead, task_due, mention';

/** A settings change: the fields given change (docs/alerts.md "Settings"). */
export const SettingsBody = Type.Object({
  signals: Type.Optional(Type.String({ maxLength: 500, description: `${signalsDescription} (empty: none)` })),
  read_threshold: Type.Optional(Type.Integer({ description: 'deck_read: the share of the pages (%) a reading must reach, 0–100' })),
  revisit_days: Type.Optional(
    Type.Integer({ description: 'revisit: the days (1–90) without a view of a link before a customer’s return is told (default 3)' }),
  ),
  inbox: Type.Optional(Type.Integer({ description: '1: alerts go to the inbox, 0: not' })),
  email: Type.Optional(Type.String({ maxLength: 20, description: 'off, instant or digest' })),
  time_zone: Type.Optional(
    Type.String({ maxLength: 100, description: 'IANA time zone of the digest hour (Asia/Shanghai, Europe/Berlin, …)' }),
  ),
  digest_hour: Type.Optional(Type.Integer({ description: 'the hour (0–23) the daily digest is sent, in time_zone' })),
  locale: Type.Optional(Type.String({ maxLength: 20, description: 'en-US or zh-CN: the language of e-mails and the inbox' })),
  projects: Type.Optional(
    Type.Union([Type.String({ maxLength: 100_000 }), Type.Array(Type.Unknown(), { maxItems: 1000 })], {
      description:
        'JSON array of {app_id, scope (mine|all|none), signals (a comma list, or null: your own), read_threshold (or null: your own), ' +
        'revisit_days (or null: your own)}, ' +
        'one per project to set (a JSON string in a form field, or an array in a JSON body)',
    }),
  ),
});

const ProjectChoice = Type.Object({
  appId: Type.String(),
  name: NullableString,
  role: Type.String(),
  scope: Type.String({ description: 'mine: the customers you are concerned with; all: every customer you may see; none: no alerts' }),
  signals: Nullable(Type.Array(Type.String())),
  readThreshold: Nullable(Type.Integer()),
  revisitDays: Nullable(Type.Integer()),
});

export const Settings = Type.Object({
  signals: Type.Array(Type.String()),
  readThreshold: Type.Integer(),
  revisitDays: Type.Integer({ description: 'revisit: the days without a view of a link before a return is told' }),
  inbox: Type.Boolean(),
  email: Type.String({ description: 'off, instant or digest' }),
  timeZone: Type.String(),
  digestHour: Type.Integer(),
  locale: Type.String(),
  emailAddress: Nullable(Type.String({ description: 'where e-mails go: the account’s address' })),
  nextDigestAt: Nullable(Type.String({ description: 'when the next digest is due (server TIME_ZONE), with email=digest' })),
  projects: Type.Array(ProjectChoice),
});

export const InboxQuery = Type.Object({
  ...PagingQuery,
  unread: Type.Optional(Type.Integer({ description: '1: unread only' })),
  app_id: Type.Optional(Type.String({ maxLength: 64, description: "one project's" })),
});

export const UnreadQuery = Type.Object({ app_id: InboxQuery.properties.app_id });

export const NotificationParams = Type.Object({ notificationId: Type.String({ maxLength: 64 }) });

export const ReadAllBody = Type.Object({
  app_id: Type.Optional(Type.String({ maxLength: 64, description: "one project's only" })),
  until: Type.Optional(
    Type.String({ maxLength: 64, description: 'a notification id: those up to it (the newest you saw), not newer ones' }),
  ),
});

export const Notification = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  projectName: NullableString,
  signal: Type.String({ description: 'deck_opened, deck_read, revisit, forward, hot_lead, task_due, mention or playbook' }),
  customerId: Type.String(),
  customerName: NullableString,
  title: Type.String({ description: 'the headline, in the member’s language' }),
  text: Type.String({ description: 'the sentence' }),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'what the words say, as data (link, pages, task, note, score…)' }),
  url: Type.String({ description: 'the customer in the console' }),
  read: Type.Boolean(),
  readAt: NullableString,
  createdAt: Type.String(),
});
