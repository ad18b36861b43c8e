import { useQuery } from '@tanstack/react-query';
import { DatePicker, Form, Input, Radio, Select, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { customerQueries } from '../../customers/index.ts';
import type { LinkItem } from '../api.ts';
import type { LinkFormValues } from '../linkForm.ts';

/*
 * The link form's fields, for a new link and an edit alike (LinkFormDrawer). Each reads the form it
 * sits in (`Form.useFormInstance`); what it shares is LinkTargetFields, the gates' fields GateFields.
 */

/** The team's name for the link, and the title its readers see. */
export function NameFields() {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item
        name="name"
        label={t('links.form.name')}
        rules={[{ required: true, whitespace: true, message: t('links.form.nameRequired') }]}
      >
        <Input placeholder={t('links.form.namePlaceholder')} maxLength={255} />
      </Form.Item>
      <Form.Item name="title" label={t('links.form.publicTitle')} extra={t('links.form.publicTitleHelp')}>
        <Input maxLength={200} />
      </Form.Item>
    </>
  );
}

/** The customer the link is for: searched among the project's; the link's own one is there before any search. */
export function CustomerField({ appId, current }: { appId: string; current?: LinkItem['customer'] }) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const customers = useQuery(customerQueries.list({ appId, owner: 'all', keyword, group: undefined, page: 1, pageSize: 20 }));
  const rows = (customers.data?.rows ?? []).map((c) => ({ id: c.id, name: c.name, company: c.company }));
  if (current && !keyword && !rows.some((c) => c.id === current.id)) rows.unshift({ id: current.id, name: current.name, company: null });
  return (
    <>
      <Form.Item name="customer_id" label={t('links.form.customer')} style={{ marginBottom: 4 }}>
        <Select
          allowClear
          showSearch
          filterOption={false}
          placeholder={t('links.form.customerSearch')}
          onSearch={setKeyword}
          loading={customers.isFetching}
          options={rows.map((c) => ({ value: c.id, label: [c.name, c.company].filter(Boolean).join(' · ') || c.id }))}
        />
      </Form.Item>
      <Typography.Paragraph type="secondary">{t('links.form.customerHelp')}</Typography.Paragraph>
    </>
  );
}

/** A new passcode: 4 to 64 characters. */
function PasscodeInput({ label, required }: { label: string; required: boolean }) {
  const { t } = useTranslation();
  return (
    <Form.Item
      name="passcode"
      label={label}
      extra={t('links.form.passcodeHelp')}
      rules={[{ required, min: 4, max: 64, message: t('links.form.passcodeHelp') }]}
    >
      <Input.Password autoComplete="new-password" />
    </Form.Item>
  );
}

/** An edit of a link with a passcode: keep it, set a new one, or remove it (its texts load with the form's gates). */
function PasscodeChange() {
  const { t } = useLazyTexts('linkGates');
  const change = Form.useWatch('passcode_change', Form.useFormInstance<LinkFormValues>()) ?? 'keep';
  return (
    <>
      <Form.Item name="passcode_change" label={t('links.detail.passcode')} style={{ marginBottom: change === 'new' ? 8 : undefined }}>
        <Radio.Group options={(['keep', 'new', 'remove'] as const).map((v) => ({ value: v, label: t(`linkGates.edit.passcode.${v}`) }))} />
      </Form.Item>
      {change === 'new' ? <PasscodeInput label={t('linkGates.edit.passcode.newLabel')} required /> : null}
    </>
  );
}

/** The passcode and the expiry. A link that has a passcode is edited by a choice (its passcode is never shown). */
export function AccessFields({ hasPasscode }: { hasPasscode: boolean }) {
  const { t } = useTranslation();
  return (
    <>
      {hasPasscode ? <PasscodeChange /> : <PasscodeInput label={t('links.form.passcode')} required={false} />}
      <Form.Item name="expires" label={t('links.form.expires')}>
        <DatePicker
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          style={{ width: '100%' }}
          disabledDate={(d) => d.isBefore(new Date(), 'day')}
        />
      </Form.Item>
      <Form.Item name="email_gate" label={t('links.form.emailGate')} valuePropName="checked">
        <Switch />
      </Form.Item>
    </>
  );
}
