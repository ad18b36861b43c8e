import { Type } from '@sinclair/typebox';

const S = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

/** The create call's fields. */
export const CampaignBody = Type.Object({
  title: S(1000, 'the subject (required)'),
  html: S(512 * 1024, 'the HTML body (required), with merge fields {{name}}, {{email}}, {{company}}, {{title}}, {{phone}}'),
  customer_ids: Type.Optional(
    Type.Union([Type.String({ maxLength: 10_000_000 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100_000 })], {
      description: 'the recipients: customer ids, comma-separated (or an array); or group_id',
    }),
  ),
  group_id: S(64, 'the recipients: every customer of this group (of those the caller may see)'),
  send_at: S(64, 'yyyy-MM-dd HH:mm:ss (server zone) or ISO 8601 with an offset; default now'),
});

/** A draft to preview or mail as a test: a campaign's subject and body, and whose merge values fill it. */
export const DraftBody = Type.Object({
  title: CampaignBody.properties.title,
  html: CampaignBody.properties.html,
  customer_id: S(64, 'the customer whose merge values fill the draft (a Sales member: one of their own); sample values when none'),
});

/** A preview's draft, and optionally the recipients whose number to count. */
export const PreviewBody = Type.Object({
  ...DraftBody.properties,
  customer_ids: CampaignBody.properties.customer_ids,
  group_id: CampaignBody.properties.group_id,
});

/** A draft as its mail would be. */
export const CampaignPreview = Type.Object({
  subject: Type.String(),
  html: Type.String({ description: 'the HTML part: merge values escaped, links to their own targets, no open pixel' }),
  text: Type.String({ description: 'the plain-text part' }),
  customerId: Type.Union([Type.String(), Type.Null()], { description: 'the customer whose values filled it; null: sample values' }),
  recipientCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'the recipients customer_ids or group_id would have now (null when neither is given)',
  }),
});

/** Where a test mail went. */
export const CampaignTest = Type.Object({
  to: Type.String({ description: "the caller's own account address" }),
  subject: Type.String({ description: 'the subject as sent, marked [Test]' }),
});

export const AppPostParams = Type.Object({ appId: Type.String({ maxLength: 64 }), postId: Type.String({ maxLength: 64 }) });

const N = Type.Integer({ minimum: 0 });

/** A campaign with its progress. */
export const Campaign = Type.Object({
  postId: Type.String(),
  appId: Type.String(),
  ownerId: Type.String(),
  title: Type.String(),
  status: Type.String({ description: 'active (sending, or waiting for send_at), paused, cancelled, done' }),
  sendAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  recipientCount: N,
  states: Type.Object(
    { queued: N, sending: N, sent: N, failed: N, unknown: N, suppressed: N, cancelled: N },
    { description: 'recipients per state' },
  ),
  done: Type.Integer({ description: 'recipients no longer queued or being sent' }),
});
