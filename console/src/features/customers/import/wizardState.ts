import { type ColumnMapping, type ImportableField, assign } from './model.ts';

/**
 * The import wizard's steps as a state machine, apart from the screen: the file, the mapping and the
 * choices made on it, the dry run and the import started, and which step shows. Each change is an
 * action; `wizardReducer` is pure.
 */

/** What becomes of a row matching a customer already there. */
export type Policy = 'skip' | 'update' | 'merge';
export const POLICIES: Policy[] = ['skip', 'update', 'merge'];

/** The steps: the file, its columns mapped, the dry run, the import. */
export const STEPS = ['file', 'map', 'check', 'run'] as const;

export interface WizardState {
  /** The step shown (an index of STEPS). */
  step: number;
  file: File | null;
  mapping: ColumnMapping;
  /** The owner given to the rows: the acting member unless a manager chose another. */
  owner: number;
  group: string | undefined;
  policy: Policy;
  /** The dry run started from the mapping step, then shown by the check step. */
  dryRunId: string | null;
  /** The import started (or found running after a reload), shown by the last step. */
  runId: string | null;
}

export type WizardAction =
  | { type: 'resume'; importId: string }
  | { type: 'choose'; file: File }
  | { type: 'read'; mapping: ColumnMapping }
  | { type: 'map'; index: number; attribute: string }
  | { type: 'owner'; owner: number }
  | { type: 'group'; group: string | undefined }
  | { type: 'policy'; policy: Policy }
  | { type: 'started'; dryRun: boolean; importId: string }
  | { type: 'back' }
  | { type: 'reset'; me: number };

/** A new wizard: no file, the rows the acting member's, rows matching a customer skipped. */
export function initialWizard(me: number): WizardState {
  return { step: 0, file: null, mapping: [], owner: me, group: undefined, policy: 'skip', dryRunId: null, runId: null };
}

export function wizardReducer(state: WizardState, action: WizardAction): WizardState {
  switch (action.type) {
    case 'resume':
      return { ...state, runId: action.importId, step: 3 };
    case 'choose':
      return { ...state, file: action.file };
    case 'read':
      return { ...state, mapping: action.mapping, step: 1 };
    case 'map':
      return { ...state, mapping: assign(state.mapping, action.index, action.attribute) };
    case 'owner':
      // The groups offered are the owner's: a group chosen for another owner is dropped.
      return { ...state, owner: action.owner, group: undefined };
    case 'group':
      return { ...state, group: action.group };
    case 'policy':
      return { ...state, policy: action.policy };
    case 'started':
      return action.dryRun ? { ...state, dryRunId: action.importId, step: 2 } : { ...state, runId: action.importId, step: 3 };
    case 'back':
      // From the mapping back to the file, from the dry run back to the mapping; an import is not undone.
      return state.step === 1 || state.step === 2 ? { ...state, step: state.step - 1 } : state;
    case 'reset':
      return initialWizard(action.me);
  }
}

/** The attributes a column may fill: the project's metadata less the read-only ones (as the template). */
export function importableFields(
  metadata: readonly { name: string; title: string; required: boolean; readonly: number }[] | undefined,
): ImportableField[] {
  return (metadata ?? []).filter((m) => m.readonly === 0).map((m) => ({ name: m.name, title: m.title, required: m.required }));
}

/** The owners a manager may give the rows: the project's members, or the acting member alone until they are read. */
export function ownerOptions(
  members: readonly { svcUserId: number; user?: { userName?: string | null } | null }[] | undefined,
  me: number,
): { value: string; label: string }[] {
  return (members ?? [{ svcUserId: me, user: null }]).map((m) => ({
    value: String(m.svcUserId),
    label: m.user?.userName || String(m.svcUserId),
  }));
}
