import { useQuery } from '@tanstack/react-query';
import { App, Form } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { meQuery } from '../../shared/api/me.ts';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { memberQueries } from '../members/index.ts';
import { DOMAIN_TYPES, type Webhook, useCreateWebhook, useRemoveWebhook, useTestWebhook, webhookQueries } from './api.ts';

export interface NewWebhook {
  url: string;
  types: string[];
}

/** A test delivery's answer, shown on its webhook's card. */
export interface Tested {
  id: string;
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * The webhooks page's state and requests: whether the caller manages the project (Master and Admin
 * only), its webhooks, adding one (its secret shown once), a test delivery, removing one, and which
 * one's deliveries are open.
 */
export function useWebhooks() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const manages = myRole === 'Master' || myRole === 'Admin';
  const hooks = useQuery({ ...webhookQueries.list(appId), enabled: manages });
  const create = useCreateWebhook(appId);
  const remove = useRemoveWebhook(appId);
  const test = useTestWebhook(appId);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<Webhook>();
  const [opened, setOpened] = useState<Webhook>();
  const [tested, setTested] = useState<Tested>();
  const [form] = Form.useForm<NewWebhook>();

  const submit = async (v: NewWebhook) => {
    try {
      const hook = await create.mutateAsync({
        url: v.url.trim(),
        ...(v.types?.length && v.types.length < DOMAIN_TYPES.length ? { domain_types: v.types.join(',') } : {}),
      });
      setAdding(false);
      form.resetFields();
      setCreated(hook);
    } catch (err) {
      const code = (err as { code?: string }).code;
      form.setFields([
        {
          name: code === 'domain_types_invalid' ? 'types' : 'url',
          errors: [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x)),
        },
      ]);
    }
  };
  const runTest = async (hook: Webhook) => {
    const r = await test.mutateAsync(hook.id);
    setTested({ id: hook.id, ...r });
    if (r.ok) void message.success(t('webhooks.testOk', { status: r.status ?? '' }));
  };
  const removeHook = (hook: Webhook) => void remove.mutateAsync(hook.id).then(() => message.success(t('webhooks.removed')));

  return {
    appId,
    loading: members.isLoading || me.isLoading,
    manages,
    hooks,
    form,
    adding,
    setAdding,
    submit,
    creating: create.isPending,
    created,
    setCreated,
    opened,
    setOpened,
    tested,
    runTest,
    testing: (hook: Webhook) => test.isPending && test.variables === hook.id,
    removeHook,
  };
}
