import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';

/** A project's playbooks' path. */
export const PlaybooksParams = AppIdParams;
/** A playbook's path. */
export const PlaybookParams = Type.Object({ appId: Type.String({ maxLength: 64 }), playbookId: Type.String({ maxLength: 64 }) });

const definition = {
  name: Type.Optional(Type.String({ maxLength: 1000, description: 'its name (at most 100 characters)' })),
  enabled: Type.Optional(Type.Unknown({ description: 'true (default): evaluated from the feed; false: kept, not evaluated' })),
  trigger: Type.Optional(
    Type.Unknown({
      description:
        '{kind: deck_read | link_open | site_visit | form_submitted | mail_opened | mail_clicked | score_above | an action of the catalogue, conditions: {linkId, fileId, page, readShare (%), seconds, url, repeats: {count, withinDays}, score}}',
    }),
  ),
  filters: Type.Optional(Type.Unknown({ description: '{ownerIds, groupIds, fields: {key: value}}: every one given must hold' })),
  actions: Type.Optional(
    Type.Unknown({
      description:
        'a list (1–10) of {type: create_task {title, kind, dueInHours} | notify {to: owner | [user ids], channels: [inbox, chat]} | enroll {sequenceId} | exit_sequence {sequenceId | null} | move_to_group {groupId} | set_field {key, value} | webhook {url}}',
    }),
  ),
  limit: Type.Optional(Type.Unknown({ description: "'once' (default: once per customer), 'every_time', or {kind: 'per_period', days}" })),
};

/** A new playbook, or a draft to dry-run. */
export const PlaybookBody = Type.Object(definition, { additionalProperties: false });
/** A change: what is given replaces the current. */
export const PlaybookEdit = PlaybookBody;
/** A dry run: a draft, or a saved playbook by id. */
export const DryRunBody = Type.Object(
  { ...definition, playbookId: Type.Optional(Type.String({ maxLength: 64, description: 'a saved playbook, instead of a draft' })) },
  { additionalProperties: false },
);

export const Playbook = Type.Object({
  id: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  trigger: Type.Unknown(),
  filters: Type.Unknown(),
  actions: Type.Unknown(),
  limit: Type.Unknown(),
  createdBy: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  secret: Type.Optional(Type.String({ description: 'only when made: signs its webhook calls (x-rapport-signature)' })),
});

export const Run = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  eventId: Type.String({ description: 'the feed event of the record that made it act' }),
  recordedAt: Type.String(),
  at: Type.String({ description: 'when it acted' }),
  lagMs: Type.Integer({ description: 'from the record to the action' }),
  actions: Type.Unknown({ description: '[{type, ok, detail?, error?}]: what each action did' }),
  webhook: Type.Union([
    Type.Null(),
    Type.Object({ status: Type.String(), attempts: Type.Integer(), error: Type.Union([Type.String(), Type.Null()]) }),
  ]),
});

export const RunsQuery = Type.Object({ ...PagingQuery });

export const DryRun = Type.Object({
  since: Type.String(),
  until: Type.String(),
  trigger: Type.Object({ en: Type.String(), zh: Type.String() }),
  records: Type.Integer(),
  truncated: Type.Boolean(),
  runs: Type.Integer(),
  customers: Type.Integer(),
  listed: Type.Array(
    Type.Object({
      customerId: Type.String(),
      customerName: Type.Union([Type.String(), Type.Null()]),
      at: Type.String(),
      recordId: Type.String(),
      actions: Type.Array(Type.String()),
    }),
  ),
});
