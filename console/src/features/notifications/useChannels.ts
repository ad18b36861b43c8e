import { useQuery } from '@tanstack/react-query';
import { App, Form } from 'antd';
import { useState } from 'react';
import { useParams } from 'react-router';
import { errorCode, errorText, fieldErrors } from '../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { projectQueries } from '../projects/index.ts';
import { type Channel, type ChannelInput, channelQueries, useRemoveChannel, useSaveChannel, useTestChannel } from './channels.api.ts';
import { type ChannelKind, type Signal, signalList, takesSecret } from './model.ts';

/** The channel form's values. */
export interface ChannelValues {
  kind: ChannelKind;
  name?: string;
  url?: string;
  secret?: string;
  events: Signal[];
  readThreshold: number;
  locale: string;
}

/** A test message's answer, shown on its channel's card. */
export interface ChannelTested {
  id: string;
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** The field a refusal is about (docs/alerts.md "Chat channels"). */
const FIELD_OF: Record<string, keyof ChannelValues> = {
  url_required: 'url',
  url_invalid: 'url',
  channel_kind_invalid: 'kind',
  channel_secret_invalid: 'secret',
  channel_name_invalid: 'name',
  signals_invalid: 'events',
  read_threshold_invalid: 'readThreshold',
  locale_invalid: 'locale',
};

/** What a form's values send: on a change, an empty URL or secret keeps the one stored. */
export function inputOf(v: ChannelValues, isNew: boolean): ChannelInput {
  const url = v.url?.trim() ?? '';
  const secret = takesSecret(v.kind) ? (v.secret?.trim() ?? '') : '';
  return {
    ...(isNew ? { kind: v.kind } : {}),
    name: v.name?.trim() ?? '',
    ...(url !== '' ? { url } : {}),
    ...(secret !== '' ? { secret } : {}),
    events: signalList(v.events),
    read_threshold: v.readThreshold,
    locale: v.locale,
  };
}

/**
 * The chat channels page's state and requests: whether the caller manages the project (its Master and
 * Admins are shown its secret), its channels, the form adding or changing one, a webhook's secret shown
 * once, a test message and what the platform answered, turning one off or on, removing one.
 */
export function useChannels() {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('notifications');
  const { message } = App.useApp();
  const projects = useQuery(projectQueries.mine());
  const manages = (projects.data ?? []).some((p) => p.id === appId && p.secret !== null);
  const channels = useQuery({ ...channelQueries.list(appId), enabled: manages });
  const save = useSaveChannel(appId);
  const remove = useRemoveChannel(appId);
  const test = useTestChannel(appId);
  const [editing, setEditing] = useState<Channel | 'new'>();
  const [created, setCreated] = useState<Channel>();
  const [tested, setTested] = useState<ChannelTested>();
  const [form] = Form.useForm<ChannelValues>();

  const submit = async (v: ChannelValues) => {
    const isNew = editing === 'new';
    try {
      const channel = await save.mutateAsync({ id: isNew ? undefined : editing?.id, input: inputOf(v, isNew) });
      setEditing(undefined);
      void message.success(t('notifications.channels.saved'));
      // A webhook's secret made by the server is in full in this answer only.
      if (isNew && v.kind === 'webhook' && !v.secret?.trim() && channel.secret) setCreated(channel);
    } catch (err) {
      const field = FIELD_OF[errorCode(err) ?? ''];
      if (field) form.setFields([{ name: field, errors: fieldErrors(err) }]);
      else void message.error(errorText(err));
    }
  };
  const runTest = async (channel: Channel) => {
    setTested(undefined);
    const r = await test.mutateAsync(channel.id);
    setTested({ id: channel.id, ...r });
  };
  const toggle = (channel: Channel) =>
    void save.mutateAsync({ id: channel.id, input: { active: channel.status === 'active' ? 0 : 1 } }).catch((err: unknown) => {
      void message.error(errorText(err));
    });
  const removeChannel = (channel: Channel) =>
    void remove.mutateAsync(channel.id).then(() => message.success(t('notifications.channels.removed')));

  return {
    appId,
    loading: projects.isLoading,
    manages,
    channels,
    form,
    editing,
    setEditing,
    submit,
    saving: save.isPending,
    created,
    setCreated,
    tested,
    runTest,
    testing: (channel: Channel) => test.isPending && test.variables === channel.id,
    toggle,
    removeChannel,
  };
}
