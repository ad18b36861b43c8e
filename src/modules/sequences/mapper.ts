import type { Selectable } from 'kysely';
import type {
  SequenceEnrollmentsTable,
  SequenceSettingsTable,
  SequenceStepRunsTable,
  SequenceVersionsTable,
  SequencesTable,
} from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';

export type SettingsRow = Selectable<SequenceSettingsTable>;
export type SequenceRow = Selectable<SequencesTable>;
export type VersionRow = Selectable<SequenceVersionsTable>;
export type EnrollmentRow = Selectable<SequenceEnrollmentsTable>;
export type StepRunRow = Selectable<SequenceStepRunsTable>;

/** What a step is: a tracked e-mail the runner sends, or a task for the sending member (a manual e-mail, a call, a task). */
export const STEP_TYPES = ['email', 'manual_email', 'call', 'task'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** A step of a version, as stored (JSON) and answered. */
export interface Step {
  type: StepType;
  /** Business days (the window's days) after the previous step, or after enrolment for the first. */
  waitDays: number;
  title: string;
  /** An e-mail step's body (merge fields as campaigns render them); null for the others. */
  html: string | null;
  /** Instructions for a manual e-mail, call or task step; null when none. */
  note: string | null;
}

/** Reading the sequence's deck this far (a share of its pages, 1–100) moves an enrolment to `toStep`. */
export interface Jump {
  readShare: number;
  toStep: number;
}

export const ENROLLMENT_STATES = ['active', 'paused', 'finished', 'exited'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

export const EXIT_REASONS = [
  'unsubscribed',
  'bounced',
  'form_submitted',
  'replied',
  'removed',
  'playbook',
  'sequence_deleted',
  'customer_deleted',
  'merged',
] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** The send settings when a project has set none. */
export const DEFAULT_SETTINGS = { windowStart: 540, windowEnd: 1020, days: [1, 2, 3, 4, 5], dailyCap: 200 } as const;

export const stepsOf = (v: Pick<VersionRow, 'steps'>): Step[] => JSON.parse(v.steps) as Step[];
export const jumpOf = (v: Pick<VersionRow, 'jump'>): Jump | null => (v.jump === null ? null : (JSON.parse(v.jump) as Jump));
export const daysOf = (s: Pick<SettingsRow, 'days'>): number[] => s.days.split(',').map(Number);

/** `09:00` of minutes of the day. */
export const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The send settings as the API answers them; `inboundUrl` is the webhook's address with its token. */
export function toSettings(s: SettingsRow, publicBaseUrl: string) {
  return {
    timeZone: s.time_zone,
    windowStart: hhmm(Number(s.window_start)),
    windowEnd: hhmm(Number(s.window_end)),
    days: daysOf(s),
    dailyCap: Number(s.daily_cap),
    replyAddress: s.reply_address,
    inboundUrl: `${publicBaseUrl.replace(/\/+$/, '')}/hooks/inbound-mail/${s.inbound_token}`,
  };
}

export type SettingsResponse = ReturnType<typeof toSettings>;

/** Enrolments of a sequence by state. */
export type StateCounts = Record<EnrollmentState, number>;
export const noCounts = (): StateCounts => ({ active: 0, paused: 0, finished: 0, exited: 0 });

/** A sequence with what its current version says. */
export function toSequence(s: SequenceRow, v: VersionRow, clock: Clock, counts: StateCounts = noCounts()) {
  return {
    id: s.id,
    appId: s.app_id,
    name: s.name,
    version: Number(s.version),
    deckLinkId: v.deck_link_id,
    jump: jumpOf(v),
    steps: stepsOf(v),
    enrollments: counts,
    createdBy: Number(s.created_by),
    createdAt: clock.format(s.created_at),
    updatedAt: clock.format(s.updated_at),
  };
}

export type SequenceResponse = ReturnType<typeof toSequence>;

/** One version as it was made (immutable). */
export function toVersion(v: VersionRow, clock: Clock) {
  return {
    sequenceId: v.sequence_id,
    version: Number(v.version),
    deckLinkId: v.deck_link_id,
    jump: jumpOf(v),
    steps: stepsOf(v),
    createdBy: Number(v.created_by),
    createdAt: clock.format(v.created_at),
  };
}

export type VersionResponse = ReturnType<typeof toVersion>;

/** An enrolment as the API answers it; `sequenceName` when the reader joined it. */
export function toEnrollment(e: EnrollmentRow & { sequence_name?: string }, clock: Clock) {
  return {
    id: e.id,
    sequenceId: e.sequence_id,
    sequenceName: e.sequence_name ?? null,
    version: Number(e.version),
    customerId: e.customer_id,
    ownerId: Number(e.owner_id),
    state: e.state as EnrollmentState,
    exitReason: e.exit_reason as ExitReason | null,
    step: Number(e.step),
    dueAt: clock.format(e.due_at),
    ownLinkId: e.own_link_id,
    enrolledBy: Number(e.enrolled_by),
    enrolledAt: clock.format(e.enrolled_at),
    updatedAt: clock.format(e.updated_at),
    endedAt: clock.format(e.ended_at),
  };
}

export type EnrollmentResponse = ReturnType<typeof toEnrollment>;

/** The body of an Enrollment event (docs/events.md): who, in which sequence and version, where they stand. */
export function enrollmentEventBody(e: EnrollmentRow, clock: Clock, extra: Record<string, unknown> = {}) {
  return {
    id: e.id,
    appId: e.app_id,
    sequenceId: e.sequence_id,
    version: Number(e.version),
    customerId: e.customer_id,
    svcUserId: String(e.owner_id),
    state: e.state,
    exitReason: e.exit_reason,
    step: Number(e.step),
    at: clock.format(e.updated_at),
    ...extra,
  };
}
