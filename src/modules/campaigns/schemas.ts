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
