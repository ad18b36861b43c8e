import { describe, expect, it } from 'vitest';
import { EMPTY_PLAYBOOK, type PlaybookDraft, fromStored, keepConditions, newAction, problems, toBody } from './model.ts';

describe('the playbook editor model', () => {
  it('keeps only the conditions the trigger takes', () => {
    expect(keepConditions('site_visit', { linkId: 'l1', url: ' /pricing ', readShare: 60 })).toEqual({ url: '/pricing' });
    expect(keepConditions('deck_read', { linkId: 'l1', readShare: 60, repeats: { count: 2, withinDays: 3 } })).toEqual({
      linkId: 'l1',
      readShare: 60,
      repeats: { count: 2, withinDays: 3 },
    });
  });

  it('names what keeps a draft from being saved; a dry run needs no name', () => {
    expect(problems(EMPTY_PLAYBOOK)).toEqual([{ field: 'name' }, { field: 'action', index: 0 }]);
    const d: PlaybookDraft = { ...EMPTY_PLAYBOOK, actions: [{ ...newAction('create_task'), title: 'Call' } as never] };
    expect(problems(d, true)).toEqual([]);
    expect(problems({ ...d, actions: [{ type: 'webhook', url: 'ftp://x' }] }, true)).toEqual([{ field: 'action', index: 0 }]);
    expect(problems({ ...d, trigger: { kind: 'score_above', conditions: {} } }, true)).toEqual([{ field: 'score' }]);
  });

  it('makes the body the API takes, and reads a stored playbook back', () => {
    const d: PlaybookDraft = {
      ...EMPTY_PLAYBOOK,
      name: ' Pricing twice ',
      trigger: { kind: 'deck_read', conditions: { readShare: 60, repeats: { count: 2, withinDays: 3 }, url: 'x' } },
      filters: {
        ownerIds: [7],
        groupIds: [],
        fields: [
          { key: 'tier', value: 'gold' },
          { key: ' ', value: 'x' },
        ],
      },
      actions: [
        { type: 'create_task', title: ' Call ', kind: 'call', dueInHours: 4 },
        { type: 'enroll', sequenceId: 's1' },
      ],
      limit: { kind: 'per_period', days: 7 },
    };
    const body = toBody(d);
    expect(body).toEqual({
      name: 'Pricing twice',
      enabled: true,
      trigger: { kind: 'deck_read', conditions: { readShare: 60, repeats: { count: 2, withinDays: 3 } } },
      filters: { ownerIds: [7], fields: { tier: 'gold' } },
      actions: [
        { type: 'create_task', title: 'Call', kind: 'call', dueInHours: 4 },
        { type: 'enroll', sequenceId: 's1' },
      ],
      limit: { kind: 'per_period', days: 7 },
    });
    expect(fromStored(body as never).filters).toEqual({ ownerIds: [7], groupIds: [], fields: [{ key: 'tier', value: 'gold' }] });
  });
});
