/**
 * A sequence's definition checked (docs/sequences.md "Steps"): its name, its steps, the deck and the
 * jump a reading of it makes. Pure: the deck's existence is the service's to ask.
 */
import { fieldFailure } from '../../http/errors.ts';
import { type Jump, STEP_TYPES, type Step, type StepType } from './mapper.ts';

export const NAME_MAX = 200;
export const STEPS_MAX = 20;
export const WAIT_DAYS_MAX = 90;
export const TITLE_MAX = 200;
export const NOTE_MAX = 4000;
/** As a campaign's HTML. */
export const HTML_MAX = 512 * 1024;

/** Characters of a text (code points). */
const characters = (text: string): number => Array.from(text).length;

/** A step as the request gives it (every field optional until checked). */
export interface StepInput {
  type?: string | undefined;
  waitDays?: number | undefined;
  title?: string | undefined;
  html?: string | undefined;
  note?: string | undefined;
}

export interface DefinitionInput {
  name?: string | undefined;
  deckLinkId?: string | null | undefined;
  jump?: { readShare?: number | undefined; toStep?: number | undefined } | null | undefined;
  steps?: StepInput[] | undefined;
}

/** The definition as stored. */
export interface Definition {
  name: string;
  deckLinkId: string | null;
  jump: Jump | null;
  steps: Step[];
}

export function checkName(input: string | undefined): string {
  const name = input?.trim() ?? '';
  if (name === '') throw fieldFailure('name', 'required', 'name is required');
  if (characters(name) > NAME_MAX) throw fieldFailure('name', 'invalid', `name is at most ${NAME_MAX} characters`);
  return name;
}

function checkStep(s: StepInput, i: number): Step {
  const where = `steps[${i}]`;
  const type = (s.type ?? '').trim() as StepType;
  if (!STEP_TYPES.includes(type)) throw fieldFailure('steps', 'invalid', `${where}.type must be one of ${STEP_TYPES.join(', ')}`);
  const waitDays = s.waitDays ?? 0;
  if (!Number.isInteger(waitDays) || waitDays < 0 || waitDays > WAIT_DAYS_MAX)
    throw fieldFailure('steps', 'invalid', `${where}.waitDays must be a whole number of business days from 0 to ${WAIT_DAYS_MAX}`);
  const title = s.title?.trim() ?? '';
  if (title === '') throw fieldFailure('steps', 'invalid', `${where}.title is required (an e-mail's subject, a task's title)`);
  if (characters(title) > TITLE_MAX) throw fieldFailure('steps', 'invalid', `${where}.title is at most ${TITLE_MAX} characters`);
  const html = s.html === undefined || s.html.trim() === '' ? null : s.html;
  if (type === 'email' && html === null) throw fieldFailure('steps', 'invalid', `${where}.html is required for an e-mail step`);
  if (type !== 'email' && html !== null)
    throw fieldFailure('steps', 'invalid', `${where}.html is for e-mail steps only (a task step takes a note)`);
  if (html !== null && html.length > HTML_MAX) throw fieldFailure('steps', 'invalid', `${where}.html is at most ${HTML_MAX} characters`);
  const note = s.note === undefined || s.note.trim() === '' ? null : s.note;
  if (note !== null && characters(note) > NOTE_MAX)
    throw fieldFailure('steps', 'invalid', `${where}.note is at most ${NOTE_MAX} characters`);
  return { type, waitDays, title, html, note };
}

export function checkSteps(input: StepInput[] | undefined): Step[] {
  if (input === undefined || input.length === 0) throw fieldFailure('steps', 'required', 'steps is required: at least one step');
  if (input.length > STEPS_MAX) throw fieldFailure('steps', 'invalid', `A sequence has at most ${STEPS_MAX} steps`);
  return input.map(checkStep);
}

/** The jump, checked against the steps and the deck: it needs a deck, and a step to jump to after the first. */
export function checkJump(input: DefinitionInput['jump'], steps: Step[], deckLinkId: string | null): Jump | null {
  if (input === undefined || input === null) return null;
  if (deckLinkId === null) throw fieldFailure('jump', 'invalid', 'A jump needs the deck it reads: give deckLinkId');
  const { readShare, toStep } = input;
  if (readShare === undefined || !Number.isInteger(readShare) || readShare < 1 || readShare > 100)
    throw fieldFailure('jump', 'invalid', 'jump.readShare must be a whole percentage from 1 to 100');
  if (toStep === undefined || !Number.isInteger(toStep) || toStep < 1 || toStep >= steps.length)
    throw fieldFailure('jump', 'invalid', `jump.toStep must be the index of a step after the first (1 to ${steps.length - 1})`);
  return { readShare, toStep };
}

export function checkDeckLinkId(input: string | null | undefined): string | null {
  if (input === undefined || input === null || input.trim() === '') return null;
  if (input.length > 64) throw fieldFailure('deck_link_id', 'invalid', 'deckLinkId must be a link of the project');
  return input.trim();
}

/** A whole definition checked (the deck's existence aside). */
export function checkDefinition(input: DefinitionInput): Definition {
  const name = checkName(input.name);
  const steps = checkSteps(input.steps);
  const deckLinkId = checkDeckLinkId(input.deckLinkId);
  return { name, steps, deckLinkId, jump: checkJump(input.jump, steps, deckLinkId) };
}
