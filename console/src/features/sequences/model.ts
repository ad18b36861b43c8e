/**
 * The rules of the sequence screens apart from React (docs/sequences.md): a sequence's steps as the
 * editor holds them and as the API takes them, reordering and removing steps (the deck's jump
 * follows its step), what a draft lacks before it can be saved, the send window's times, and the
 * funnel's rates. Pure.
 */

export const STEP_TYPES = ['email', 'manual_email', 'call', 'task'] as const;
export type StepType = (typeof STEP_TYPES)[number];
/** At most this many steps in a sequence (the server refuses more). */
export const MAX_STEPS = 20;
/** A wait is 0–90 business days. */
export const MAX_WAIT = 90;
/** The merge fields an e-mail step's title and body take (the campaigns' render, and the sequence's own). */
export const MERGE_FIELDS = ['name', 'company', 'owner_name', 'own_link', 'email', 'title', 'phone'] as const;
/** An enrolment's states, for the enrolments' filter (the API's document gives the state as a string, so the SDK's types cannot). */
export const ENROLLMENT_STATES = ['active', 'paused', 'finished', 'exited'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

export interface Step {
  type: StepType;
  /** Business days after the previous step (after enrolment for the first). */
  waitDays: number;
  /** The e-mail's subject; for the other kinds, the task's title. */
  title: string;
  /** An e-mail step's body. */
  html: string;
  /** What the member is to do (manual e-mail, call, task). */
  note: string;
}

export interface Jump {
  /** The share of the deck's pages read, in per cent. */
  readShare: number;
  /** The index of the step to jump to. */
  toStep: number;
}

export interface SequenceDraft {
  name: string;
  deckLinkId: string | null;
  jump: Jump | null;
  steps: Step[];
}

export const newStep = (type: StepType, first: boolean): Step => ({ type, waitDays: first ? 0 : 2, title: '', html: '', note: '' });

export const EMPTY_DRAFT: SequenceDraft = { name: '', deckLinkId: null, jump: null, steps: [newStep('email', true)] };

/** A step moved from one place to another; the jump keeps pointing at the same step. */
export function moveStep(draft: SequenceDraft, from: number, to: number): SequenceDraft {
  if (to < 0 || to >= draft.steps.length || from === to) return draft;
  const steps = [...draft.steps];
  const [moved] = steps.splice(from, 1);
  if (moved === undefined) return draft;
  steps.splice(to, 0, moved);
  return { ...draft, steps, jump: draft.jump ? { ...draft.jump, toStep: movedIndex(draft.jump.toStep, from, to) } : null };
}

function movedIndex(index: number, from: number, to: number): number {
  if (index === from) return to;
  if (from < index && index <= to) return index - 1;
  if (to <= index && index < from) return index + 1;
  return index;
}

/** A step removed; a jump to it is removed too, one after it moves up. */
export function removeStep(draft: SequenceDraft, index: number): SequenceDraft {
  const steps = draft.steps.filter((_, i) => i !== index);
  let jump = draft.jump;
  if (jump && jump.toStep === index) jump = null;
  else if (jump && jump.toStep > index) jump = { ...jump, toStep: jump.toStep - 1 };
  return { ...draft, steps, jump };
}

export type Problem =
  { field: 'name' } | { field: 'steps' } | { field: 'title' | 'html' | 'htmlFields' | 'waitDays'; step: number } | { field: 'jump' };

/** The `{{…}}` marks of a body that are not merge fields (the server refuses them as the campaigns' render does). */
export function unknownMergeFields(html: string): string[] {
  const known = new Set<string>(MERGE_FIELDS);
  const found = [...html.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1] as string);
  return [...new Set(found.filter((f) => !known.has(f)))];
}

/** What keeps a draft from being saved, each named by its field (and step), in the order shown. */
export function problems(draft: SequenceDraft): Problem[] {
  const found: Problem[] = [];
  if (draft.name.trim() === '') found.push({ field: 'name' });
  if (draft.steps.length === 0 || draft.steps.length > MAX_STEPS) found.push({ field: 'steps' });
  draft.steps.forEach((s, step) => {
    if (s.title.trim() === '') found.push({ field: 'title', step });
    if (s.type === 'email' && s.html.trim() === '') found.push({ field: 'html', step });
    if (s.type === 'email' && unknownMergeFields(s.html).length > 0) found.push({ field: 'htmlFields', step });
    if (!Number.isInteger(s.waitDays) || s.waitDays < 0 || s.waitDays > MAX_WAIT) found.push({ field: 'waitDays', step });
  });
  if (draft.jump && (draft.deckLinkId === null || draft.jump.toStep < 1 || draft.jump.toStep >= draft.steps.length)) {
    found.push({ field: 'jump' });
  }
  return found;
}

/** The body of a create or an edit: each step with the fields its kind uses. */
export function toBody(draft: SequenceDraft) {
  return {
    name: draft.name.trim(),
    ...(draft.deckLinkId ? { deckLinkId: draft.deckLinkId } : {}),
    ...(draft.deckLinkId && draft.jump ? { jump: draft.jump } : {}),
    steps: draft.steps.map((s) =>
      s.type === 'email'
        ? { type: s.type, waitDays: s.waitDays, title: s.title.trim(), html: s.html }
        : { type: s.type, waitDays: s.waitDays, title: s.title.trim(), ...(s.note.trim() ? { note: s.note.trim() } : {}) },
    ),
  };
}

interface StoredStep {
  type: string;
  waitDays: number;
  title?: string | null | undefined;
  html?: string | null | undefined;
  note?: string | null | undefined;
}

/** A stored sequence as the editor holds it. */
export function fromStored(s: {
  name: string;
  deckLinkId?: string | null | undefined;
  jump?: Jump | null | undefined;
  steps: StoredStep[];
}): SequenceDraft {
  return {
    name: s.name,
    deckLinkId: s.deckLinkId ?? null,
    jump: s.jump ?? null,
    steps: s.steps.map((st) => ({
      type: (STEP_TYPES as readonly string[]).includes(st.type) ? (st.type as StepType) : 'task',
      waitDays: st.waitDays,
      title: st.title ?? '',
      html: st.html ?? '',
      note: st.note ?? '',
    })),
  };
}

/** The business day a step runs on, counted from enrolment (day 0): the waits summed. */
export function dayOfStep(steps: readonly Step[], index: number): number {
  return steps.slice(0, index + 1).reduce((sum, s) => sum + s.waitDays, 0);
}

/** A merge field's mark, inserted into a body at the caret (or at its end). */
export function insertAt(text: string, at: number | null, field: string): { text: string; caret: number } {
  const mark = `{{${field}}}`;
  const i = at === null || at < 0 || at > text.length ? text.length : at;
  return { text: text.slice(0, i) + mark + text.slice(i), caret: i + mark.length };
}

/** A share of a count, in whole per cent; '' when there is nothing to share. */
export function rate(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '';
}

/** "HH:mm" as minutes of the day; null when it is not a time. */
export function minutesOf(time: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The send window's days as the settings take them: ISO weekdays (1 Monday … 7 Sunday), in order. */
export const sortedDays = (days: readonly number[]): number[] => [...new Set(days)].filter((d) => d >= 1 && d <= 7).sort((a, b) => a - b);
