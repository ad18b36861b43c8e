import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Checkbox, Form, Grid, Input, Modal, Select, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { memberQueries } from '../../members/index.ts';
import { type FieldDefinition, type MetadataItem, customerQueries, useRemoveField, useSaveField } from '../api.ts';
import { FieldRows } from '../components/FieldRows.tsx';
import { CUSTOM_TYPES, editableSettings, optionLines, parseOptionLines } from '../form/fieldEditor.ts';
import { parseOptions } from '../form/registry.ts';

interface Values {
  name?: string;
  label?: string;
  type?: string;
  options?: string;
  flags?: string[];
}

const FLAGS = ['required', 'unique', 'readonly', 'searchable'] as const;

/** The project's customer form: its fields in order, and (for Master and Admin) adding, editing, moving and removing them. */
export function FieldsPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const metadata = useQuery(customerQueries.metadata(appId));
  const save = useSaveField(appId);
  const remove = useRemoveField(appId);
  const [form] = Form.useForm<Values>();
  const [editing, setEditing] = useState<MetadataItem | 'new' | null>(null);
  const type = Form.useWatch('type', form);
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const manages = myRole === 'Master' || myRole === 'Admin';
  const fields = [...(metadata.data ?? [])].sort((a, b) => a.index - b.index);
  const current = editing === 'new' ? { isExt: true, type: type ?? 'text' } : editing;
  const settings = current ? editableSettings(current) : null;

  const open = (item: MetadataItem | 'new') => {
    setEditing(item);
    form.resetFields();
    if (item === 'new') form.setFieldsValue({ type: 'text', flags: [] });
    else
      form.setFieldsValue({
        name: item.name,
        label: item.title,
        type: item.type,
        options: optionLines(parseOptions(item.optionValues)),
        flags: FLAGS.filter((f) => (f === 'readonly' ? item.readonly === 1 : Boolean(item[f]))),
      });
  };

  const submit = async (v: Values) => {
    if (!editing || !settings) return;
    const flags = new Set(v.flags ?? []);
    const body: FieldDefinition = { label: v.label?.trim(), required: flags.has('required') };
    if (editing === 'new') Object.assign(body, { name: v.name?.trim(), type: v.type });
    if (settings.unique) body.unique = flags.has('unique');
    if (settings.readonly) body.readonly = flags.has('readonly');
    if (settings.searchable) body.searchable = flags.has('searchable');
    if (settings.options) body.options = parseOptionLines(v.options ?? '');
    try {
      await save.mutateAsync({ ...(editing === 'new' ? {} : { editing: editing.name }), body });
      setEditing(null);
      void message.success(t('customers.fieldEditor.saved'));
    } catch (err) {
      const detail = errorDetail(err);
      form.setFields([{ name: 'label', errors: detail ? [errorText(err), detail] : [errorText(err)] }]);
    }
  };

  const move = async (item: MetadataItem, position: number) => {
    try {
      await save.mutateAsync({ editing: item.name, body: { index: Math.max(0, position) } });
    } catch (err) {
      void message.error(errorText(err));
    }
  };

  return (
    <>
      <PageHeader
        title={t('customers.fieldEditor.title')}
        extra={
          manages ? (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => open('new')}>
              {t('customers.fieldEditor.add')}
            </Button>
          ) : null
        }
      />
      <Typography.Paragraph type="secondary">{t('customers.fieldEditor.intro')}</Typography.Paragraph>
      <FieldRows
        fields={fields}
        loading={metadata.isLoading}
        manages={manages}
        wide={wide}
        onMove={(f, position) => void move(f, position)}
        onEdit={open}
        onRemove={(f) =>
          void remove.mutateAsync(f.name).then(
            () => message.success(t('customers.fieldEditor.removed')),
            (err: unknown) => message.error(errorText(err)),
          )
        }
      />
      <Modal
        title={t(editing === 'new' ? 'customers.fieldEditor.addTitle' : 'customers.fieldEditor.editTitle')}
        open={editing !== null}
        onCancel={() => setEditing(null)}
        onOk={() => form.submit()}
        okText={t('common.actions.save')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={save.isPending}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} requiredMark={false}>
          <Form.Item
            name="name"
            label={t('customers.fieldEditor.name')}
            extra={t('customers.fieldEditor.nameHelp')}
            rules={[{ required: editing === 'new' }]}
          >
            <Input disabled={editing !== 'new'} />
          </Form.Item>
          <Form.Item name="label" label={t('customers.fieldEditor.label')} rules={[{ required: true, whitespace: true, max: 64 }]}>
            <Input />
          </Form.Item>
          <Form.Item name="type" label={t('customers.fieldEditor.type')}>
            <Select
              disabled={editing !== 'new'}
              options={(editing === 'new' || (current && (CUSTOM_TYPES as readonly string[]).includes(current.type))
                ? CUSTOM_TYPES
                : [current?.type ?? 'text']
              ).map((ty) => ({
                value: ty,
                label: (CUSTOM_TYPES as readonly string[]).includes(ty) ? t(`customers.fieldEditor.types.${ty as 'text'}`) : ty,
              }))}
            />
          </Form.Item>
          {settings?.options ? (
            <Form.Item name="options" label={t('customers.fieldEditor.options')} extra={t('customers.fieldEditor.optionsHelp')}>
              <Input.TextArea rows={5} />
            </Form.Item>
          ) : null}
          <Form.Item name="flags">
            <Checkbox.Group
              options={FLAGS.filter((f) => f === 'required' || settings?.[f]).map((f) => ({
                value: f,
                label: t(`customers.fieldEditor.flags.${f}`),
              }))}
            />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
