import { useQuery } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { sequenceQueries, useDeleteSequence, useSaveSequence } from './api.ts';
import {
  EMPTY_DRAFT,
  MAX_STEPS,
  type Problem,
  type SequenceDraft,
  type Step,
  type StepType,
  fromStored,
  moveStep,
  newStep,
  problems,
  removeStep,
  toBody,
} from './model.ts';

/**
 * The sequence editor's state and doings: the draft (a new sequence, or the current version of one),
 * its steps added, changed, moved and removed, what keeps it from being saved (shown once Save is
 * pressed), saving (a new sequence opens its page; an edit is a new version) and archiving.
 */
export function useSequenceEditor() {
  const { appId = '', sequenceId } = useParams();
  const { t } = useLazyTexts('sequences');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const stored = useQuery({ ...sequenceQueries.item(appId, sequenceId ?? ''), enabled: sequenceId !== undefined });
  const [draft, setDraft] = useState<SequenceDraft>(EMPTY_DRAFT);
  const [loadedVersion, setLoadedVersion] = useState<number | undefined>(undefined);
  const [tried, setTried] = useState(false);
  const save = useSaveSequence(appId);
  const remove = useDeleteSequence(appId);

  // The stored sequence fills the editor when it comes, and again when a save made a new version.
  useEffect(() => {
    if (stored.data && stored.data.version !== loadedVersion) {
      setDraft(fromStored(stored.data));
      setLoadedVersion(stored.data.version);
    }
  }, [stored.data, loadedVersion]);

  const found: Problem[] = tried ? problems(draft) : [];
  const has = (field: Problem['field'], step?: number) =>
    found.some((p) => p.field === field && (step === undefined || ('step' in p && p.step === step)));

  const setStep = (index: number, change: Partial<Step>) =>
    setDraft((d) => ({ ...d, steps: d.steps.map((s, i) => (i === index ? { ...s, ...change } : s)) }));

  const submit = () => {
    setTried(true);
    if (problems(draft).length > 0) {
      void message.error(t('sequences.editor.fix'));
      return;
    }
    save.mutate(
      { id: sequenceId, body: toBody(draft) },
      {
        onSuccess: (saved) => {
          void message.success(sequenceId ? t('sequences.editor.savedVersion', { version: saved.version }) : t('sequences.editor.created'));
          setTried(false);
          if (!sequenceId) void navigate(`/p/${appId}/sequences/${saved.id}`, { replace: true });
        },
        onError: (err) => {
          const detail = errorDetail(err);
          void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
        },
      },
    );
  };

  const archive = () =>
    sequenceId &&
    remove.mutate(sequenceId, {
      onSuccess: () => {
        void message.success(t('sequences.editor.archived'));
        void navigate(`/p/${appId}/sequences`);
      },
    });

  return {
    appId,
    sequenceId,
    stored,
    draft,
    version: stored.data?.version,
    setName: (name: string) => setDraft((d) => ({ ...d, name })),
    setDeck: (deckLinkId: string | null) => setDraft((d) => ({ ...d, deckLinkId, jump: deckLinkId ? d.jump : null })),
    setJump: (jump: SequenceDraft['jump']) => setDraft((d) => ({ ...d, jump })),
    setStep,
    addStep: (type: StepType) =>
      setDraft((d) => (d.steps.length >= MAX_STEPS ? d : { ...d, steps: [...d.steps, newStep(type, d.steps.length === 0)] })),
    moveStep: (from: number, to: number) => setDraft((d) => moveStep(d, from, to)),
    removeStep: (index: number) => setDraft((d) => removeStep(d, index)),
    has,
    submit,
    saving: save.isPending,
    archive,
    archiving: remove.isPending,
  };
}

export type SequenceEditor = ReturnType<typeof useSequenceEditor>;
