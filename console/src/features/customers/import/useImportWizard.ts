import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useReducer } from 'react';
import { memberQueries } from '../../members/index.ts';
import { customerQueries } from '../api.ts';
import { type ImportJob, importQueries, refreshCustomers, usePreview, useStartImport } from './api.ts';
import { anyMapped, initialMapping, isSettled, mappingField, unmappedRequired } from './model.ts';
import { useDownload } from './useDownload.ts';
import { importableFields, initialWizard, ownerOptions, wizardReducer } from './wizardState.ts';

export interface WizardProps {
  appId: string;
  /** The acting member: the path's svc-user-id, and the default owner of the rows. */
  me: number;
  /** Master or Admin: the rows may be given another owner. */
  isManager: boolean;
  open: boolean;
  /** An import already running (after a reload): the wizard opens on its progress. */
  resume?: string | undefined;
  /** Called with the import whose end the user has just seen in the drawer, if any. */
  onClose: (seenEnded?: string) => void;
}

/**
 * The import wizard's state and requests: the steps (wizardState.ts), the file read by the server's
 * preview, the dry run and the import started and followed, the project's attributes, members and
 * groups it offers, and the customer list refreshed once a real import is over.
 */
export function useImportWizard({ appId, me, isManager, open, resume, onClose }: WizardProps) {
  const client = useQueryClient();
  const [state, dispatch] = useReducer(wizardReducer, me, initialWizard);
  const preview = usePreview(appId);
  const start = useStartImport(appId, me);
  const templates = useDownload();

  const metadata = useQuery({ ...customerQueries.metadata(appId), enabled: open });
  const members = useQuery({ ...memberQueries.list(appId), enabled: open && isManager });
  const groups = useQuery({ ...importQueries.groupsOf(appId, state.owner), enabled: open && state.step === 1 });
  const dryRun = useQuery({ ...importQueries.job(appId, me, state.dryRunId ?? ''), enabled: open && state.dryRunId !== null });
  const run = useQuery({ ...importQueries.job(appId, me, state.runId ?? ''), enabled: open && state.runId !== null });
  const fields = useMemo(() => importableFields(metadata.data), [metadata.data]);

  useEffect(() => {
    if (open && resume) dispatch({ type: 'resume', importId: resume });
  }, [open, resume]);

  // A real import's customers join the list as soon as it is over.
  const runDone = run.data?.status === 'done';
  useEffect(() => {
    if (runDone) void refreshCustomers(client, appId);
  }, [runDone, client, appId]);

  const reset = () => {
    dispatch({ type: 'reset', me });
    preview.reset();
    start.reset();
  };
  const close = () => {
    const seen = run.data && isSettled(run.data) ? run.data.id : undefined;
    reset();
    onClose(seen);
  };
  // Once the import is over, Escape closes the drawer wherever the focus is: the drawer hears it only
  // from inside, and the button that started the import has gone, taking the focus with it. Bound
  // anew each render, so `close` sees the job as it is now.
  const ended = open && state.step === 3 && run.data !== undefined && isSettled(run.data);
  useEffect(() => {
    if (!ended) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) close();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
  const choose = (file: File) => {
    dispatch({ type: 'choose', file });
    preview.reset();
  };
  const back = () => {
    if (state.step === 2) start.reset();
    dispatch({ type: 'back' });
  };

  const readFile = async () => {
    if (!state.file) return;
    try {
      const answer = await preview.mutateAsync(state.file);
      dispatch({ type: 'read', mapping: initialMapping(answer.mapping, fields) });
    } catch {
      // shown from preview.error
    }
  };
  const startJob = async (dry: boolean) => {
    const { file, mapping, owner, group, policy } = state;
    if (!file) return;
    try {
      const job = await start.mutateAsync({ file, mapping: mappingField(mapping), ownerId: owner, groupId: group, policy, dryRun: dry });
      dispatch({ type: 'started', dryRun: dry, importId: job.id });
    } catch {
      // shown from start.error
    }
  };

  return {
    appId,
    me,
    isManager,
    state,
    dispatch,
    fields,
    preview,
    start,
    templates,
    columns: preview.data?.mapping ?? [],
    sample: preview.data?.rows[0] ?? [],
    missing: unmappedRequired(state.mapping, fields),
    mapped: anyMapped(state.mapping),
    owners: ownerOptions(members.data, me),
    groups: groups.data ?? [],
    dryRun: {
      job: dryRun.data as ImportJob | undefined,
      error: dryRun.error,
      over: dryRun.data !== undefined && dryRun.data.status === 'done',
    },
    run: { job: run.data as ImportJob | undefined, error: run.error, settled: run.data !== undefined && isSettled(run.data) },
    reset,
    close,
    choose,
    back,
    readFile,
    startJob,
  };
}

export type ImportWizardModel = ReturnType<typeof useImportWizard>;
