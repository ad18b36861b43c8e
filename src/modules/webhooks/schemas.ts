import { Type } from '@sinclair/typebox';
import { NullableInteger, NullableString } from '../../http/schema-types.ts';
import { AppIdParams } from '../projects/schemas.ts';

/** A project's notification channels' path. */
export const ChannelsParams = AppIdParams;

/** A notification channel's path. */
export const ChannelParams = Type.Object({ appId: Type.String({ maxLength: 64 }), channelId: Type.String({ maxLength: 64 }) });

const fields = {
  url: Type.Optional(Type.String({ maxLength: 5000, description: "the robot's or receiver's URL (public addresses only)" })),
  secret: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        "DingTalk's or Feishu's signing secret (optional), a webhook channel's own (default: one made and shown once); none for slack and wecom",
    }),
  ),
  events: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        'comma list of signals: deck_opened, deck_read, revisit, forward, hot_lead, task_due, mention ' +
        '(a new channel: the customers’ signals deck_opened, deck_read, revisit, forward, hot_lead unless given)',
    }),
  ),
  name: Type.Optional(Type.String({ maxLength: 1000, description: 'the team’s name for the channel (at most 100 characters)' })),
  read_threshold: Type.Optional(
    Type.Integer({ description: 'deck_read: the share of the pages (%) a reading must reach to be posted (default 50)' }),
  ),
  locale: Type.Optional(
    Type.String({ maxLength: 20, description: 'en-US or zh-CN (default zh-CN for wecom, dingtalk and feishu, else en-US)' }),
  ),
};

export const ChannelBody = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 20, description: 'slack, wecom, dingtalk, feishu or webhook' })),
  ...fields,
});

export const ChannelEdit = Type.Object({
  ...fields,
  kind: Type.Optional(Type.String({ maxLength: 20, description: 'a channel keeps its kind' })),
  active: Type.Optional(Type.Integer({ description: '1 turns the channel on (again, after a 410), 0 off' })),
});

export const Channel = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  kind: Type.String(),
  name: NullableString,
  url: Type.String({ description: 'masked: its origin and last four characters (the URL is a credential)' }),
  secret: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'masked (****abcd); in full only in the answer that made a webhook channel’s secret; null when none',
  }),
  events: Type.Array(Type.String()),
  readThreshold: NullableInteger,
  locale: NullableString,
  status: Type.String({ description: 'active or disabled' }),
  disabledReason: NullableString,
  createdAt: Type.String(),
});

export const ChannelTest = Type.Object({ ok: Type.Boolean(), status: NullableInteger, error: NullableString });
