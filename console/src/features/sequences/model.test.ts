import { describe, expect, it } from 'vitest';
import {
  EMPTY_DRAFT,
  type SequenceDraft,
  dayOfStep,
  insertAt,
  minutesOf,
  moveStep,
  newStep,
  problems,
  rate,
  removeStep,
  toBody,
  unknownMergeFields,
} from './model.ts';

const draft = (): SequenceDraft => ({
  name: 'Trial',
  deckLinkId: 'deck1',
  jump: { readShare: 80, toStep: 2 },
  steps: [
    { ...newStep('email', true), title: 'Hi {{name}}', html: '<p>Hi</p>' },
    { ...newStep('manual_email', false), title: 'Write' },
    { ...newStep('call', false), title: 'Call', waitDays: 3 },
  ],
});

describe('the sequence editor model', () => {
  it('moves a step and the jump keeps pointing at the same step', () => {
    const moved = moveStep(draft(), 2, 1);
    expect(moved.steps.map((s) => s.type)).toEqual(['email', 'call', 'manual_email']);
    expect(moved.jump?.toStep).toBe(1);
    expect(moveStep(draft(), 0, 1).jump?.toStep).toBe(2);
    expect(moveStep(draft(), 0, -1)).toEqual(draft());
  });

  it('removes a step: a jump to it goes, one after it moves up', () => {
    expect(removeStep(draft(), 2).jump).toBeNull();
    expect(removeStep(draft(), 1).jump).toEqual({ readShare: 80, toStep: 1 });
  });

  it('names what keeps a draft from being saved', () => {
    expect(problems(draft())).toEqual([]);
    expect(problems(EMPTY_DRAFT)).toEqual([{ field: 'name' }, { field: 'title', step: 0 }, { field: 'html', step: 0 }]);
    expect(problems({ ...draft(), deckLinkId: null })).toEqual([{ field: 'jump' }]);
    expect(problems({ ...draft(), jump: { readShare: 50, toStep: 0 } })).toEqual([{ field: 'jump' }]);
  });

  it('sends each step with the fields its kind uses, and no jump without a deck', () => {
    const body = toBody({ ...draft(), deckLinkId: null });
    expect(body).toEqual({
      name: 'Trial',
      steps: [
        { type: 'email', waitDays: 0, title: 'Hi {{name}}', html: '<p>Hi</p>' },
        { type: 'manual_email', waitDays: 2, title: 'Write' },
        { type: 'call', waitDays: 3, title: 'Call' },
      ],
    });
    expect(toBody(draft()).jump).toEqual({ readShare: 80, toStep: 2 });
  });

  it('counts business days, inserts merge fields, reads times and rates', () => {
    expect(dayOfStep(draft().steps, 2)).toBe(5);
    expect(insertAt('Hi !', 3, 'name')).toEqual({ text: 'Hi {{name}}!', caret: 11 });
    expect(insertAt('Hi', null, 'name').text).toBe('Hi{{name}}');
    expect(minutesOf('09:30')).toBe(570);
    expect(minutesOf('24:00')).toBeNull();
    expect(rate(1, 3)).toBe('33%');
    expect(rate(1, 0)).toBe('');
  });

  it('names the marks that are not merge fields, once each, and keeps such a draft from being saved', () => {
    expect(unknownMergeFields('<p>Hi {{name}}, {{ first_name }} {{first_name}} {{own_link}} {{x}}</p>')).toEqual(['first_name', 'x']);
    expect(unknownMergeFields('<p>{{name}} {{ company }}</p>')).toEqual([]);
    const d = draft();
    d.steps[0] = { ...(d.steps[0] as SequenceDraft['steps'][number]), html: '<p>Hi {{firstname}}</p>' };
    expect(problems(d)).toEqual([{ field: 'htmlFields', step: 0 }]);
  });
});
