import { useQuery } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { playbookQueries, useDeletePlaybook, useDryRun, useSavePlaybook } from './api.ts';
import {
  type Action,
  type ActionType,
  type Conditions,
  EMPTY_PLAYBOOK,
  MAX_ACTIONS,
  type PlaybookDraft,
  type Problem,
  type TriggerKind,
  fromStored,
  newAction,
  problems,
  toBody,
} from './model.ts';

/**
 * The playbook editor's state and doings: the draft (a new playbook or a stored one), its trigger,
 * filters, actions and limit, what keeps it from being saved (shown once Save or Dry run is pressed),
 * saving, deleting, and the dry run of the draft as it is now.
 */
export function usePlaybookEditor() {
  const { appId = '', playbookId } = useParams();
  const { t } = useLazyTexts('playbooks');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const stored = useQuery({ ...playbookQueries.item(appId, playbookId ?? ''), enabled: playbookId !== undefined });
  const [draft, setDraft] = useState<PlaybookDraft>(EMPTY_PLAYBOOK);
  const [loaded, setLoaded] = useState<unknown>(undefined);
  const [tried, setTried] = useState<'save' | 'dry' | null>(null);
  const save = useSavePlaybook(appId);
  const remove = useDeletePlaybook(appId);
  const dry = useDryRun(appId);

  useEffect(() => {
    if (stored.data && stored.data !== loaded) {
      setDraft(fromStored(stored.data as never));
      setLoaded(stored.data);
    }
  }, [stored.data, loaded]);

  const found: Problem[] = tried ? problems(draft, tried === 'dry') : [];
  const has = (field: Problem['field'], index?: number) =>
    found.some((p) => p.field === field && (index === undefined || ('index' in p && p.index === index)));
  const fail = (err: unknown) => {
    const detail = errorDetail(err);
    void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
  };

  const submit = () => {
    setTried('save');
    if (problems(draft).length > 0) return void message.error(t('playbooks.editor.fix'));
    save.mutate(
      { id: playbookId, body: toBody(draft) },
      {
        onSuccess: (saved) => {
          void message.success(t('playbooks.editor.saved'));
          setTried(null);
          if (!playbookId) void navigate(`/p/${appId}/playbooks/${saved.id}`, { replace: true });
        },
        onError: fail,
      },
    );
  };

  const tryIt = () => {
    setTried('dry');
    if (problems(draft, true).length > 0) return void message.error(t('playbooks.editor.fix'));
    const body = toBody(draft);
    dry.mutate({ ...body, name: body.name || t('playbooks.editor.untitled') }, { onError: fail });
  };

  const setAction = (index: number, a: Action) => setDraft((d) => ({ ...d, actions: d.actions.map((x, i) => (i === index ? a : x)) }));

  return {
    appId,
    playbookId,
    stored,
    draft,
    set: (change: Partial<PlaybookDraft>) => setDraft((d) => ({ ...d, ...change })),
    setKind: (kind: TriggerKind) => setDraft((d) => ({ ...d, trigger: { kind, conditions: d.trigger.conditions } })),
    setConditions: (change: Partial<Conditions>) =>
      setDraft((d) => ({ ...d, trigger: { ...d.trigger, conditions: { ...d.trigger.conditions, ...change } } })),
    setFilters: (change: Partial<PlaybookDraft['filters']>) => setDraft((d) => ({ ...d, filters: { ...d.filters, ...change } })),
    setAction,
    addAction: (type: ActionType) =>
      setDraft((d) => (d.actions.length >= MAX_ACTIONS ? d : { ...d, actions: [...d.actions, newAction(type)] })),
    removeAction: (index: number) => setDraft((d) => ({ ...d, actions: d.actions.filter((_, i) => i !== index) })),
    has,
    submit,
    saving: save.isPending,
    tryIt,
    dryRun: dry,
    remove: () =>
      playbookId &&
      remove.mutate(playbookId, {
        onSuccess: () => {
          void message.success(t('playbooks.editor.deleted'));
          void navigate(`/p/${appId}/playbooks`);
        },
      }),
    removing: remove.isPending,
  };
}

export type PlaybookEditor = ReturnType<typeof usePlaybookEditor>;
