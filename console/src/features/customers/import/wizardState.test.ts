import { describe, expect, it } from 'vitest';
import { type WizardAction, type WizardState, importableFields, initialWizard, ownerOptions, wizardReducer } from './wizardState.ts';

const ME = 7;
const run = (actions: WizardAction[], from: WizardState = initialWizard(ME)) => actions.reduce(wizardReducer, from);
const file = new File(['name,phone\nAnn,1\n'], 'people.csv', { type: 'text/csv' });

describe('the import wizard', () => {
  it('starts on the file, the rows the acting member own, duplicates skipped', () => {
    expect(initialWizard(ME)).toEqual({
      step: 0,
      file: null,
      mapping: [],
      owner: ME,
      group: undefined,
      policy: 'skip',
      dryRunId: null,
      runId: null,
    });
  });

  it('goes from the file to its mapping, a dry run, then the import', () => {
    const mapped = run([
      { type: 'choose', file },
      { type: 'read', mapping: ['name', ''] },
    ]);
    expect(mapped).toMatchObject({ step: 1, file, mapping: ['name', ''] });
    const checked = run([{ type: 'started', dryRun: true, importId: 'dry' }], mapped);
    expect(checked).toMatchObject({ step: 2, dryRunId: 'dry', runId: null });
    expect(run([{ type: 'started', dryRun: false, importId: 'real' }], checked)).toMatchObject({ step: 3, dryRunId: 'dry', runId: 'real' });
  });

  it('maps each attribute from one column at most', () => {
    const state = run([
      { type: 'read', mapping: ['name', 'phone', ''] },
      { type: 'map', index: 2, attribute: 'phone' },
    ]);
    expect(state.mapping).toEqual(['name', '', 'phone']);
  });

  it('drops the group chosen when the owner changes (the groups are the owner’s)', () => {
    const state = run([
      { type: 'group', group: 'g1' },
      { type: 'policy', policy: 'merge' },
      { type: 'owner', owner: 9 },
    ]);
    expect(state).toMatchObject({ owner: 9, group: undefined, policy: 'merge' });
  });

  it('goes back from the mapping and the dry run, never from the import', () => {
    const mapped = run([{ type: 'read', mapping: ['name'] }]);
    expect(run([{ type: 'back' }], mapped).step).toBe(0);
    const checked = run([{ type: 'started', dryRun: true, importId: 'dry' }], mapped);
    expect(run([{ type: 'back' }], checked)).toMatchObject({ step: 1, mapping: ['name'], dryRunId: 'dry' });
    const running = run([{ type: 'started', dryRun: false, importId: 'real' }], checked);
    expect(run([{ type: 'back' }], running).step).toBe(3);
    expect(run([{ type: 'back' }]).step).toBe(0);
  });

  it('opens on the progress of an import found running, and starts anew on reset', () => {
    expect(run([{ type: 'resume', importId: 'real' }])).toMatchObject({ step: 3, runId: 'real' });
    const busy = run([
      { type: 'choose', file },
      { type: 'read', mapping: ['name'] },
      { type: 'owner', owner: 9 },
      { type: 'resume', importId: 'r' },
    ]);
    expect(run([{ type: 'reset', me: ME }], busy)).toEqual(initialWizard(ME));
  });
});

describe('the choices offered', () => {
  it('maps columns to the attributes that are not read-only', () => {
    const metadata = [
      { name: 'name', title: '姓名', required: true, readonly: 0 },
      { name: 'createdAt', title: '创建时间', required: false, readonly: 1 },
      { name: 'ext_level', title: 'Level', required: false, readonly: 0 },
    ];
    expect(importableFields(metadata)).toEqual([
      { name: 'name', title: '姓名', required: true },
      { name: 'ext_level', title: 'Level', required: false },
    ]);
    expect(importableFields(undefined)).toEqual([]);
  });

  it('offers the members as owners by name, the acting member alone until they are read', () => {
    expect(ownerOptions(undefined, ME)).toEqual([{ value: '7', label: '7' }]);
    expect(
      ownerOptions(
        [
          { svcUserId: 7, user: { userName: 'Sam' } },
          { svcUserId: 9, user: { userName: '' } },
        ],
        ME,
      ),
    ).toEqual([
      { value: '7', label: 'Sam' },
      { value: '9', label: '9' },
    ]);
  });
});
