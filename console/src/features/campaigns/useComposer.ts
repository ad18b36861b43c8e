import { useQuery } from '@tanstack/react-query';
import { Form } from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { toServerTime } from '../../shared/time/serverTime.ts';
import { customerQueries } from '../customers/index.ts';
import { campaignQueries, useCreateCampaign, useSendTest } from './api.ts';
import {
  type ComposerValues,
  type Field,
  campaignInput,
  canPreview,
  confirmedCount,
  customerOption,
  draftOf,
  fieldOf,
  formName,
  insertMergeField,
  isCounting,
  previewedCustomer,
  recipientsOf,
} from './model.ts';
import { useSettled } from './useSettled.ts';

/** A failure in the user's language: its text, and its detail when it has one. */
export const failureMessages = (err: unknown) => [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x));

const codeOf = (err: unknown) => (err as { code?: string }).code ?? '';

/**
 * The composer's state and doings: the form and what it watches, the customer search, the server's
 * preview of the draft once it settles (its verdict shown on the field it names), the test mail, and
 * Send after a confirmation that waits for the count of the draft as it is now.
 */
export function useComposer() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm<ComposerValues>();
  const body = useRef<TextAreaRef>(null);
  const [keyword, setKeyword] = useState('');
  const [view, setView] = useState<'html' | 'text'>('html');
  const [confirming, setConfirming] = useState(false);
  const [formError, setFormError] = useState<string[]>();
  const [previewAs, setPreviewAs] = useState('');
  const sendTest = useSendTest(appId);
  const create = useCreateCampaign(appId);

  const title = Form.useWatch('title', form) ?? '';
  const html = Form.useWatch('html', form) ?? '';
  const mode = Form.useWatch('mode', form) ?? 'customers';
  const picked = Form.useWatch('customers', form) ?? [];
  const group = Form.useWatch('group', form);
  const when = Form.useWatch('when', form) ?? 'now';
  const sendAt = Form.useWatch('sendAt', form);

  const customers = useQuery(customerQueries.list({ appId, owner: 'all', keyword, group: undefined, page: 1, pageSize: 20 }));
  const groups = useQuery(customerQueries.groups(appId));

  const recipients = recipientsOf(mode, picked, group);
  // The same list while the picked customers stay: a new list on each render (a preview arriving)
  // moved the keyboard's highlighted option back to the chosen one.
  const previewAsOptions = useMemo(
    () => [{ value: '', label: t('campaigns.compose.sample') }, ...picked.map((c) => ({ value: c.value, label: c.label }))],
    [picked, t],
  );
  const shownAs = previewedCustomer(mode, picked, previewAs);
  const draft = draftOf({ title, html, previewAs: shownAs, recipients });
  const settled = useSettled(draft, 400);
  const ready = canPreview(settled);
  const preview = useQuery({ ...campaignQueries.preview(appId, settled), enabled: ready });

  // The server's verdict on the draft lands on the field it names, and leaves it when the draft is good again.
  const shownByPreview = useRef<Field | undefined>(undefined);
  useEffect(() => {
    const previous = shownByPreview.current;
    if (preview.isError) {
      const field = fieldOf(codeOf(preview.error));
      if (previous && previous !== field) form.setFields([{ name: formName(previous, mode), errors: [] }]);
      if (field) form.setFields([{ name: formName(field, mode), errors: failureMessages(preview.error) }]);
      shownByPreview.current = field;
    } else if (preview.isSuccess && previous) {
      form.setFields([{ name: formName(previous, mode), errors: [] }]);
      shownByPreview.current = undefined;
    }
  }, [preview.isError, preview.isSuccess, preview.error, form, mode]);

  /** Puts `{{field}}` at the body's cursor and the cursor after it. */
  const insert = (field: string) => {
    const el = body.current?.resizableTextArea?.textArea;
    const current: string = form.getFieldValue('html') ?? '';
    const next = insertMergeField(current, el?.selectionStart ?? current.length, el?.selectionEnd ?? current.length, field);
    form.setFieldValue('html', next.html);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(next.caret, next.caret);
    });
  };

  const showFailure = (err: unknown) => {
    const field = fieldOf(codeOf(err));
    if (field) form.setFields([{ name: formName(field, mode), errors: failureMessages(err) }]);
    else setFormError(failureMessages(err));
  };

  const test = async () => {
    setFormError(undefined);
    try {
      await form.validateFields(['title', 'html']);
    } catch {
      return;
    }
    sendTest.mutate(draft);
  };

  /** The form is valid: ask for the confirmation. */
  const confirm = () => {
    setFormError(undefined);
    setConfirming(true);
  };

  const send = async () => {
    const input = campaignInput(form.getFieldsValue(true) as ComposerValues, recipients, toServerTime);
    try {
      const campaign = await create.mutateAsync(input);
      setConfirming(false);
      void navigate(`/p/${appId}/posts/${campaign.postId}`);
    } catch (err) {
      setConfirming(false);
      showFailure(err);
    }
  };

  const previewState = {
    isFetching: preview.isFetching,
    isPlaceholderData: preview.isPlaceholderData,
    isError: preview.isError,
    recipientCount: preview.data?.recipientCount,
  };
  const counting = isCounting(draft, settled, previewState);

  return {
    appId,
    form,
    body,
    title,
    mode,
    when,
    sendAt,
    formError,
    insert,
    search: { setKeyword, searching: customers.isFetching, options: (customers.data?.rows ?? []).map(customerOption) },
    groups: { loading: groups.isLoading, options: (groups.data ?? []).map((g) => ({ value: g.id, label: g.name })) },
    test: {
      run: test,
      pending: sendTest.isPending,
      sent: sendTest.isSuccess ? { to: sendTest.data.to } : undefined,
      failure: sendTest.isError ? failureMessages(sendTest.error) : undefined,
    },
    preview: { query: preview, ready, view, setView, shownAs, setPreviewAs, previewAsOptions },
    confirmation: {
      open: confirming,
      confirm,
      cancel: () => setConfirming(false),
      send,
      sending: create.isPending,
      counting,
      count: confirmedCount(counting, previewState),
    },
  };
}

export type Composer = ReturnType<typeof useComposer>;
