import { Button, Flex, Form } from 'antd';
import { useState } from 'react';
import { errorCode, errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { Person } from '../model.ts';
import { MentionBox } from './MentionBox.tsx';

/**
 * The note box: Markdown text with a mention picker (type @, pick a member who may see the
 * customer; the server's `@[name](member:id)` is written in). `onSave` sends it; a refusal is shown
 * under the box by its code, from the server's error table.
 */
export function NoteEditor({
  people,
  initial = '',
  saveLabel,
  onSave,
  onCancel,
  autoFocus = false,
}: {
  people: readonly Person[];
  initial?: string;
  saveLabel: string;
  onSave: (content: string) => Promise<unknown>;
  onCancel?: () => void;
  autoFocus?: boolean;
}) {
  const { t } = useLazyTexts('tasks');
  const [form] = Form.useForm<{ content: string }>();
  const [saving, setSaving] = useState(false);
  const submit = async ({ content }: { content: string }) => {
    setSaving(true);
    try {
      await onSave(content);
      form.resetFields();
    } catch (err) {
      const detail = errorDetail(err);
      // content_required and content_invalid are the box's; another failure (customer_not_found) too: it is the only field.
      form.setFields([{ name: 'content', errors: [errorText(err), ...(detail && errorCode(err) !== 'content_required' ? [detail] : [])] }]);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Form form={form} layout="vertical" requiredMark={false} initialValues={{ content: initial }} onFinish={(v) => void submit(v)}>
      <Form.Item
        name="content"
        label={t('tasks.notes.label')}
        extra={t('tasks.notes.hint')}
        rules={[{ required: true, whitespace: true, message: t('tasks.notes.required') }]}
        style={{ marginBottom: 8 }}
      >
        <MentionBox people={people} autoFocus={autoFocus} placeholder={t('tasks.notes.placeholder')} />
      </Form.Item>
      <Flex gap={8} justify="flex-end" wrap>
        {onCancel && <Button onClick={onCancel}>{t('common.actions.cancel')}</Button>}
        <Button type="primary" htmlType="submit" loading={saving}>
          {saveLabel}
        </Button>
      </Flex>
    </Form>
  );
}
