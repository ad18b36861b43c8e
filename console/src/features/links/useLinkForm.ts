import { App, Form } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import type { LinkItem } from './api.ts';
import { useCreateLink, useUpdateLink, useUploadFile } from './formApi.ts';
import { FIELD_OF, type LinkFormValues, createInput, editInput, editValues, newValues } from './linkForm.ts';

/** An upload of a deck in the form: sends a file, and whether it is under way or failed. */
export interface DeckUpload {
  send: (file: File) => Promise<void>;
  pending: boolean;
  error: string | undefined;
}

export interface LinkFormOptions {
  appId: string;
  /** The link edited; a new one is made when absent. */
  link?: LinkItem | undefined;
  /** A new link's deck, chosen before the form opened. */
  initialFileId?: string | undefined;
  onCreated: (link: LinkItem) => void;
  /** After an edit (said in a message): the link as saved, or undefined when nothing had changed (nothing was sent). */
  onSaved: (link: LinkItem | undefined) => void;
}

/**
 * The link form's state: its values to start from (a new link's, or the link's as it was when the form
 * opened), what Save sends (a new link, or only what an edit changed), where the server's failure lands,
 * and a deck uploaded from the form.
 */
export function useLinkForm({ appId, link, initialFileId, onCreated, onSaved }: LinkFormOptions) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<LinkFormValues>();
  // The values when the form opened: an edit sends what differs from them, whatever the live stream refreshes meanwhile.
  const [initial] = useState<Partial<LinkFormValues>>(() => (link ? editValues(link) : newValues(initialFileId)));
  const create = useCreateLink(appId);
  const update = useUpdateLink(appId);
  const uploadFile = useUploadFile(appId);
  const [uploadError, setUploadError] = useState<string>();

  /** The server's failure on the field it names (the name when it names none), brought into sight. */
  const showFailure = (err: unknown) => {
    const code = (err as { code?: string }).code ?? '';
    const field = FIELD_OF[code] ?? 'name';
    form.setFields([{ name: field, errors: [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x)) }]);
    form.scrollToField(field, { block: 'center', focus: true });
  };

  const submit = async (values: LinkFormValues) => {
    try {
      if (!link) {
        const made = await create.mutateAsync(createInput(values));
        form.resetFields();
        onCreated(made);
        return;
      }
      const input = editInput(link, initial as LinkFormValues, values);
      const saved = Object.keys(input).length === 0 ? undefined : await update.mutateAsync({ linkId: link.id, input });
      // The form's texts (linkGates) are loaded: it is open.
      void (saved ? message.success(t('linkGates.edit.saved')) : message.info(t('linkGates.edit.unchanged')));
      onSaved(saved);
    } catch (err) {
      showFailure(err);
    }
  };

  const upload: DeckUpload = {
    pending: uploadFile.isPending,
    error: uploadError,
    send: async (file: File) => {
      setUploadError(undefined);
      try {
        const stored = await uploadFile.mutateAsync(file);
        form.setFieldsValue({ file_id: stored.id, name: form.getFieldValue('name') || stored.name });
        form.setFields([{ name: 'file_id', errors: [] }]);
      } catch (err) {
        setUploadError([errorText(err), errorDetail(err)].filter(Boolean).join(' — '));
      }
    },
  };

  return { form, initial, submit, upload, saving: create.isPending || update.isPending };
}
