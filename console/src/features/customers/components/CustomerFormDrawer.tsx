import { useQuery } from '@tanstack/react-query';
import { ApiError } from '@rapport/sdk';
import { Alert, Button, Drawer, Flex, Form, Grid, Input, Select, Skeleton } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { memberQueries } from '../../members/index.ts';
import { type Customer, customerQueries, useSaveCustomer } from '../api.ts';
import { type FormField, fieldOfError, formFields, formValues, regionalFields, requestBody } from '../form/registry.ts';
import { projectQueries } from '../../projects/index.ts';
import { useFieldLabel, useOptionLabel } from './useFieldLabel.ts';

interface Props {
  appId: string;
  /** The acting member (the path's svc-user-id): the owner of a new customer. */
  actingUserId: number;
  /** Editing this customer; creating one when absent. */
  customer?: Customer;
  open: boolean;
  onClose: () => void;
  onSaved: (customer: Customer) => void;
}

/**
 * A customer's form, built from the project's metadata (form/registry.ts). The server validates; its
 * failure lands on the field it names, in the user's language, with the server's detail under it.
 */
export function CustomerFormDrawer({ appId, actingUserId, customer, open, onClose, onSaved }: Props) {
  const { t, i18n } = useTranslation();
  const label = useFieldLabel();
  const optionLabel = useOptionLabel();
  const wide = Boolean(Grid.useBreakpoint().md);
  const mode = customer ? 'edit' : 'create';
  const metadata = useQuery({ ...customerQueries.metadata(appId), enabled: open });
  const groups = useQuery({ ...customerQueries.groups(appId), enabled: open });
  const members = useQuery({ ...memberQueries.list(appId), enabled: open });
  const region = useQuery({ ...projectQueries.mine(), enabled: open }).data?.find((p) => p.id === appId)?.region;
  const save = useSaveCustomer(appId, actingUserId);
  const [form] = Form.useForm<Record<string, string | string[] | undefined>>();
  const [failure, setFailure] = useState<unknown>(null);
  const failureRef = useRef<HTMLDivElement>(null);
  // The default fields the project's region and the user's language call for (form/registry.ts).
  const fields = useMemo(
    () =>
      regionalFields(formFields(metadata.data ?? [], mode), {
        region,
        language: i18n.language,
        current: customer as unknown as Record<string, unknown> | undefined,
      }),
    [metadata.data, mode, region, i18n.language, customer],
  );
  const initial = useMemo(
    () =>
      customer
        ? formValues(fields, customer as unknown as Record<string, unknown>)
        : Object.fromEntries(fields.map((f) => [f.name, f.initialValue])),
    [customer, fields],
  );

  const submit = async (values: Record<string, unknown>) => {
    setFailure(null);
    try {
      const saved = await save.mutateAsync({ ...(customer ? { customerId: customer.id } : {}), body: requestBody(fields, values, mode) });
      form.resetFields();
      onSaved(saved);
    } catch (err) {
      const field = err instanceof ApiError ? fieldOfError(err.code, fields) : undefined;
      if (field === undefined) {
        setFailure(err);
        // The alert heads the form, out of sight when Save (at its end) was pressed: brought back, focused, once drawn.
        requestAnimationFrame(() => {
          failureRef.current?.scrollIntoView({ block: 'nearest' });
          failureRef.current?.focus({ preventScroll: true });
        });
        return;
      }
      const detail = errorDetail(err);
      form.setFields([{ name: field, errors: detail ? [errorText(err), detail] : [errorText(err)] }]);
      reveal(field);
    }
  };

  /**
   * The field in error brought into sight: Save is at the end of a long form, the field may be far
   * above it. The field goes to the middle of the drawer with the cursor in it; once its messages are
   * drawn (antd shows them a few frames later), its whole item (label, box, messages) is in view.
   */
  const reveal = (field: Parameters<typeof form.scrollToField>[0]) =>
    requestAnimationFrame(() => {
      form.scrollToField(field, { block: 'center', focus: true });
      const item = document.activeElement?.closest('.ant-form-item');
      let frames = 0;
      const whole = () => {
        if (!item?.isConnected) return;
        if (!item.querySelector('.ant-form-item-explain-error') && ++frames < 30) requestAnimationFrame(whole);
        else item.scrollIntoView({ block: 'nearest' });
      };
      whole();
    });

  const widget = (f: FormField) => {
    switch (f.widget.kind) {
      case 'text':
        return f.widget.multiline ? (
          <Input.TextArea rows={2} />
        ) : (
          <Input type={f.widget.inputType} inputMode={f.widget.inputType === 'tel' ? 'tel' : undefined} />
        );
      case 'select':
        return (
          <Select
            allowClear
            mode={f.widget.multiple ? 'multiple' : undefined}
            placeholder={t('customers.choose')}
            options={f.widget.options.map((o) => ({ value: o.value, label: optionLabel(f.name, o.value, o.label) }))}
          />
        );
      case 'number':
        return <Input inputMode="decimal" />;
      case 'date':
        return <Input type="date" />;
      case 'group':
        return (
          <Select
            allowClear
            placeholder={t('customers.choose')}
            options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
          />
        );
      case 'member':
        return (
          <Select
            allowClear
            placeholder={t('customers.choose')}
            options={(members.data ?? []).map((m) => ({ value: String(m.svcUserId), label: m.user?.userName || String(m.svcUserId) }))}
          />
        );
      case 'readonly':
        return <Input readOnly variant="borderless" />;
    }
  };

  return (
    <Drawer
      title={t(customer ? 'customers.editTitle' : 'customers.createTitle')}
      open={open}
      onClose={onClose}
      width={wide ? 520 : '100%'}
      destroyOnHidden
      extra={
        <Flex gap={8}>
          <Button onClick={onClose}>{t('common.actions.cancel')}</Button>
        </Flex>
      }
    >
      {metadata.isLoading ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Form
          form={form}
          layout="vertical"
          initialValues={initial}
          onFinish={(v) => void submit(v)}
          onFinishFailed={({ errorFields }) => errorFields[0] && reveal(errorFields[0].name)}
        >
          {failure ? (
            <div ref={failureRef} tabIndex={-1} style={{ outline: 'none' }}>
              <Alert type="error" showIcon style={{ marginBottom: 16 }} message={errorText(failure)} description={errorDetail(failure)} />
            </div>
          ) : null}
          {fields.map((f) => (
            <Form.Item
              key={f.name}
              name={f.name}
              label={label(f.name, f.title)}
              rules={
                f.required
                  ? [{ required: true, whitespace: true, message: t('customers.required', { field: label(f.name, f.title) }) }]
                  : []
              }
            >
              {widget(f)}
            </Form.Item>
          ))}
          <Button type="primary" htmlType="submit" loading={save.isPending} block>
            {t('common.actions.save')}
          </Button>
        </Form>
      )}
    </Drawer>
  );
}
