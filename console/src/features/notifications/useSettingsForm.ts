import { useQuery } from '@tanstack/react-query';
import { App, Form } from 'antd';
import { useEffect } from 'react';
import { errorCode, errorText, fieldErrors } from '../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { type Settings, type SettingsChange, settingsQuery, useSaveSettings } from './api.ts';
import { SIGNALS, type Signal, signalList } from './model.ts';

/** The settings form's values: a switch per signal, the delivery, each project's scope by its id. */
export interface SettingsValues {
  on: Record<Signal, boolean>;
  readThreshold: number;
  revisitDays: number;
  inbox: boolean;
  email: string;
  digestHour: number;
  timeZone: string;
  locale: string;
  scopes: Record<string, string>;
}

function valuesOf(s: Settings): SettingsValues {
  return {
    on: Object.fromEntries(SIGNALS.map((sig) => [sig, s.signals.includes(sig)])) as Record<Signal, boolean>,
    readThreshold: s.readThreshold,
    revisitDays: s.revisitDays,
    inbox: s.inbox,
    email: s.email,
    digestHour: s.digestHour,
    timeZone: s.timeZone,
    locale: s.locale,
    scopes: Object.fromEntries(s.projects.map((p) => [p.appId, p.scope])),
  };
}

/** The change a form's values make: every field of the member's own, and the projects whose scope moved (their other choices kept). */
export function changeOf(s: Settings, v: SettingsValues): SettingsChange {
  const projects = s.projects
    .filter((p) => v.scopes[p.appId] !== undefined && v.scopes[p.appId] !== p.scope)
    .map((p) => ({
      app_id: p.appId,
      scope: v.scopes[p.appId] ?? p.scope,
      signals: p.signals === null ? null : signalList(p.signals),
      read_threshold: p.readThreshold,
      revisit_days: p.revisitDays,
    }));
  return {
    signals: signalList(SIGNALS.filter((sig) => v.on[sig])),
    read_threshold: v.readThreshold,
    revisit_days: v.revisitDays,
    inbox: v.inbox ? 1 : 0,
    email: v.email,
    digest_hour: v.digestHour,
    time_zone: v.timeZone,
    locale: v.locale,
    ...(projects.length > 0 ? { projects } : {}),
  };
}

/** The field a refusal is about (docs/alerts.md "Settings"). */
const FIELD_OF: Record<string, keyof SettingsValues> = {
  read_threshold_invalid: 'readThreshold',
  revisit_days_invalid: 'revisitDays',
  digest_hour_invalid: 'digestHour',
  time_zone_invalid: 'timeZone',
  email_mode_invalid: 'email',
  locale_invalid: 'locale',
};

/** The notification settings page's state: the member's settings, the form filled from them, saving. */
export function useSettingsForm() {
  const { t } = useLazyTexts('notifications');
  const { message } = App.useApp();
  const settings = useQuery(settingsQuery());
  const save = useSaveSettings();
  const [form] = Form.useForm<SettingsValues>();
  const data = settings.data;

  useEffect(() => {
    if (data) form.setFieldsValue(valuesOf(data));
  }, [data, form]);

  const submit = async (values: SettingsValues) => {
    if (!data) return;
    try {
      await save.mutateAsync(changeOf(data, values));
      void message.success(t('notifications.settings.saved'));
    } catch (err) {
      const field = FIELD_OF[errorCode(err) ?? ''];
      if (field) form.setFields([{ name: field, errors: fieldErrors(err) }]);
      else void message.error(errorText(err));
    }
  };

  return { settings, form, submit, saving: save.isPending };
}
