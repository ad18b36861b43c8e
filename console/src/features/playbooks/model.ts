/**
 * The rules of the playbook editor apart from React (docs/playbooks.md): a playbook as the editor
 * holds it and as the API takes it, the conditions each trigger takes, a new action of each type,
 * and what a draft lacks before it can be saved or tried. Pure.
 */

export const TRIGGER_KINDS = [
  'deck_read',
  'link_open',
  'site_visit',
  'form_submitted',
  'mail_opened',
  'mail_clicked',
  'score_above',
] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const ACTION_TYPES = ['create_task', 'notify', 'enroll', 'exit_sequence', 'move_to_group', 'set_field', 'webhook'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const LIMIT_KINDS = ['once', 'per_period', 'every_time'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];
export const TASK_KINDS = ['call', 'email', 'todo'] as const;
export const MAX_ACTIONS = 10;

export type Condition = 'linkId' | 'page' | 'readShare' | 'seconds' | 'url' | 'repeats' | 'score';

/** The conditions each trigger takes, in the order the editor shows them. */
export const CONDITIONS: Record<TriggerKind, readonly Condition[]> = {
  deck_read: ['linkId', 'readShare', 'page', 'seconds', 'repeats'],
  link_open: ['linkId', 'repeats'],
  site_visit: ['url', 'repeats'],
  form_submitted: ['repeats'],
  mail_opened: ['repeats'],
  mail_clicked: ['url', 'repeats'],
  score_above: ['score'],
};

export interface Conditions {
  linkId?: string | undefined;
  page?: number | undefined;
  readShare?: number | undefined;
  seconds?: number | undefined;
  url?: string | undefined;
  repeats?: { count: number; withinDays: number } | undefined;
  score?: number | undefined;
}

/** An action as the server takes it (the API's document gives a playbook's actions and trigger as unknown, so the SDK's types cannot). */
export type Action =
  | { type: 'create_task'; title: string; kind: 'call' | 'email' | 'todo'; dueInHours: number }
  | { type: 'notify'; to: 'owner' | number[]; channels: ('inbox' | 'chat')[] }
  | { type: 'enroll'; sequenceId: string }
  | { type: 'exit_sequence'; sequenceId: string | null }
  | { type: 'move_to_group'; groupId: string }
  | { type: 'set_field'; key: string; value: string }
  | { type: 'webhook'; url: string };

export interface PlaybookDraft {
  name: string;
  enabled: boolean;
  trigger: { kind: TriggerKind; conditions: Conditions };
  filters: { ownerIds: number[]; groupIds: string[]; fields: { key: string; value: string }[] };
  actions: Action[];
  limit: { kind: LimitKind; days: number | null };
}

export function newAction(type: ActionType): Action {
  switch (type) {
    case 'create_task':
      return { type, title: '', kind: 'call', dueInHours: 24 };
    case 'notify':
      return { type, to: 'owner', channels: ['inbox'] };
    case 'enroll':
      return { type, sequenceId: '' };
    case 'exit_sequence':
      return { type, sequenceId: null };
    case 'move_to_group':
      return { type, groupId: '' };
    case 'set_field':
      return { type, key: '', value: '' };
    case 'webhook':
      return { type, url: '' };
  }
}

export const EMPTY_PLAYBOOK: PlaybookDraft = {
  name: '',
  enabled: true,
  trigger: { kind: 'deck_read', conditions: { readShare: 60 } },
  filters: { ownerIds: [], groupIds: [], fields: [] },
  actions: [newAction('create_task')],
  limit: { kind: 'once', days: null },
};

/** The conditions a trigger of this kind takes, those it does not dropped. */
export function keepConditions(kind: TriggerKind, c: Conditions): Conditions {
  const out: Conditions = {};
  for (const name of CONDITIONS[kind]) {
    const v = c[name];
    if (v === undefined || v === '' || v === null) continue;
    (out as Record<string, unknown>)[name] = typeof v === 'string' ? v.trim() : v;
  }
  return out;
}

export type Problem = { field: 'name' | 'score' | 'actions' | 'limit' } | { field: 'action'; index: number };

function actionIncomplete(a: Action): boolean {
  switch (a.type) {
    case 'create_task':
      return a.title.trim() === '';
    case 'notify':
      return a.channels.length === 0 || (a.to !== 'owner' && a.to.length === 0);
    case 'enroll':
      return a.sequenceId === '';
    case 'move_to_group':
      return a.groupId === '';
    case 'set_field':
      return a.key.trim() === '';
    case 'webhook':
      return !/^https?:\/\/\S+$/i.test(a.url.trim());
    case 'exit_sequence':
      return false;
  }
}

/** What keeps a draft from being saved (`forDryRun`: a dry run needs no name). */
export function problems(d: PlaybookDraft, forDryRun = false): Problem[] {
  const found: Problem[] = [];
  if (!forDryRun && d.name.trim() === '') found.push({ field: 'name' });
  if (d.trigger.kind === 'score_above' && !(Number(d.trigger.conditions.score) > 0)) found.push({ field: 'score' });
  if (d.actions.length === 0 || d.actions.length > MAX_ACTIONS) found.push({ field: 'actions' });
  d.actions.forEach((a, index) => actionIncomplete(a) && found.push({ field: 'action', index }));
  if (d.limit.kind === 'per_period' && !(Number(d.limit.days) >= 1)) found.push({ field: 'limit' });
  return found;
}

/** The body of a create, an edit or a dry run of a draft. */
export function toBody(d: PlaybookDraft) {
  const fields = Object.fromEntries(d.filters.fields.filter((f) => f.key.trim() !== '').map((f) => [f.key.trim(), f.value]));
  return {
    name: d.name.trim(),
    enabled: d.enabled,
    trigger: { kind: d.trigger.kind, conditions: keepConditions(d.trigger.kind, d.trigger.conditions) },
    filters: {
      ...(d.filters.ownerIds.length ? { ownerIds: d.filters.ownerIds } : {}),
      ...(d.filters.groupIds.length ? { groupIds: d.filters.groupIds } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
    },
    actions: d.actions.map((a) =>
      a.type === 'create_task'
        ? { ...a, title: a.title.trim() }
        : a.type === 'set_field'
          ? { ...a, key: a.key.trim() }
          : a.type === 'webhook'
            ? { ...a, url: a.url.trim() }
            : a,
    ),
    limit: d.limit.kind === 'per_period' ? { kind: 'per_period' as const, days: d.limit.days ?? 1 } : { kind: d.limit.kind },
  };
}

interface Stored {
  name: string;
  enabled: boolean;
  trigger: { kind: string; conditions: Conditions };
  filters: { ownerIds?: number[]; groupIds?: string[]; fields?: Record<string, string> };
  actions: Action[];
  limit: { kind: LimitKind; days?: number | null };
}

/** A stored playbook as the editor holds it. */
export function fromStored(p: Stored): PlaybookDraft {
  const kind = (TRIGGER_KINDS as readonly string[]).includes(p.trigger.kind) ? (p.trigger.kind as TriggerKind) : 'deck_read';
  return {
    name: p.name,
    enabled: p.enabled,
    trigger: { kind, conditions: p.trigger.conditions },
    filters: {
      ownerIds: p.filters.ownerIds ?? [],
      groupIds: p.filters.groupIds ?? [],
      fields: Object.entries(p.filters.fields ?? {}).map(([key, value]) => ({ key, value })),
    },
    actions: p.actions,
    limit: { kind: p.limit.kind, days: p.limit.days ?? null },
  };
}
