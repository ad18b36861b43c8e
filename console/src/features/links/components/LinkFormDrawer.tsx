import { CheckCircleFilled, UploadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, DatePicker, Drawer, Flex, Form, Grid, Input, Radio, Select, Skeleton, Switch, Typography, Upload } from 'antd';
import type { Dayjs } from 'dayjs';
import { Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { toServerTime } from '../../../shared/time/serverTime.ts';
import { customerQueries } from '../../customers/index.ts';
import { type LinkInput, type LinkItem, linkQueries, useCreateLink, useUploadFile } from '../api.ts';
import { listValue } from '../gatesApi.ts';
import { GateFields } from './GateFields.tsx';

interface Values {
  name: string;
  title?: string;
  type: 1 | 2 | 3;
  file_id?: string;
  website?: string;
  customer_id?: string;
  passcode?: string;
  expires?: Dayjs | null;
  allow_download?: boolean;
  email_gate?: boolean;
  watermark?: boolean;
  email_verify?: boolean;
  allow_list?: string;
  deny_list?: string;
  agreement?: string;
}

/** Where the API names a field in a failure: the form field that shows it. */
const FIELD_OF: Record<string, keyof Values> = {
  name_required: 'name',
  title_invalid: 'title',
  file_id_required: 'file_id',
  file_not_found: 'file_id',
  website_required: 'website',
  website_invalid: 'website',
  customer_not_found: 'customer_id',
  passcode_invalid: 'passcode',
  expires_at_invalid: 'expires',
  mail_not_configured: 'email_verify',
  allow_list_invalid: 'allow_list',
  deny_list_invalid: 'deny_list',
  agreement_invalid: 'agreement',
};

/** The status line of the chosen file: pages being prepared, ready, or why it failed. */
function FileStatus({ appId, fileId }: { appId: string; fileId: string }) {
  const { t } = useTranslation();
  const file = useQuery(linkQueries.file(appId, fileId));
  if (!file.data) return null;
  const f = file.data;
  if (f.status === 'failed') return <Alert type="error" showIcon message={t('links.form.fileFailed', { why: f.failure ?? '' })} />;
  if (f.status === 'processing')
    return (
      <Typography.Text type="secondary" data-file-status="processing">
        {t('links.form.fileProcessing', { done: f.renderedPages, total: f.pageCount })}
      </Typography.Text>
    );
  return (
    <Typography.Text data-file-status="ready">
      <CheckCircleFilled style={{ color: '#2e7d32' }} /> {t('links.form.fileReady', { count: f.pageCount })}
    </Typography.Text>
  );
}

/** The new-link form: a deck (chosen or uploaded here) or a web address, and its options. */
export function LinkFormDrawer({
  appId,
  open,
  initialFileId,
  onClose,
  onCreated,
}: {
  appId: string;
  open: boolean;
  initialFileId?: string | undefined;
  onClose: () => void;
  onCreated: (link: LinkItem) => void;
}) {
  const { t } = useTranslation();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [form] = Form.useForm<Values>();
  const type = Form.useWatch('type', form) ?? 1;
  const fileId = Form.useWatch('file_id', form);
  const emailGate = Form.useWatch('email_gate', form) ?? false;
  const [keyword, setKeyword] = useState('');
  const files = useQuery({ ...linkQueries.files(appId), enabled: open });
  const customers = useQuery({
    ...customerQueries.list({ appId, owner: 'all', keyword, group: undefined, page: 1, pageSize: 20 }),
    enabled: open,
  });
  const upload = useUploadFile(appId);
  const create = useCreateLink(appId);
  const [uploadError, setUploadError] = useState<string>();

  useEffect(() => {
    if (open && initialFileId) form.setFieldsValue({ type: 1, file_id: initialFileId });
  }, [open, initialFileId, form]);

  const submit = async (v: Values) => {
    const input: LinkInput = {
      name: v.name.trim(),
      ...(v.title?.trim() ? { title: v.title.trim() } : {}),
      type: v.type,
      ...(v.type === 1 ? { file_id: v.file_id ?? '' } : { website: (v.website ?? '').trim() }),
      ...(v.customer_id ? { customer_id: v.customer_id } : {}),
      ...(v.passcode ? { passcode: v.passcode } : {}),
      ...(v.expires ? { expires_at: toServerTime(v.expires) } : {}),
      ...(v.type === 1 ? { allow_download: v.allow_download ? 1 : 0, watermark: v.watermark ? 1 : 0 } : {}),
      email_gate: v.email_gate ? 1 : 0,
      // The code and the lists are the e-mail gate's (each turns it on): sent only with it.
      ...(v.email_gate && v.email_verify ? { email_verify: 1 as const } : {}),
      ...(v.email_gate && listValue(v.allow_list) ? { allow_list: listValue(v.allow_list) } : {}),
      ...(v.email_gate && listValue(v.deny_list) ? { deny_list: listValue(v.deny_list) } : {}),
      ...(v.agreement?.trim() ? { agreement: v.agreement.trim() } : {}),
    };
    try {
      const link = await create.mutateAsync(input);
      form.resetFields();
      onCreated(link);
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      const field = FIELD_OF[code] ?? 'name';
      form.setFields([{ name: field, errors: [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x)) }]);
    }
  };

  const sendFile = async (file: File) => {
    setUploadError(undefined);
    try {
      const stored = await upload.mutateAsync(file);
      form.setFieldsValue({ file_id: stored.id, name: form.getFieldValue('name') || stored.name });
      form.setFields([{ name: 'file_id', errors: [] }]);
    } catch (err) {
      setUploadError([errorText(err), errorDetail(err)].filter(Boolean).join(' — '));
    }
  };

  return (
    <Drawer
      title={t('links.form.title')}
      open={open}
      onClose={onClose}
      width={wide ? 520 : '100%'}
      destroyOnHidden
      extra={
        <Button type="primary" loading={create.isPending} onClick={() => form.submit()}>
          {t('links.form.create')}
        </Button>
      }
    >
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{
          type: 1,
          allow_download: false,
          email_gate: false,
          watermark: false,
          email_verify: false,
          ...(initialFileId ? { file_id: initialFileId } : {}),
        }}
        onFinish={(v) => void submit(v)}
      >
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
        <Form.Item name="type" label={t('links.form.type')}>
          <Radio.Group
            optionType="button"
            options={([1, 2, 3] as const).map((v) => ({
              value: v,
              label: t(`links.kinds.${v === 1 ? 'file' : v === 2 ? 'web' : 'redirect'}`),
            }))}
          />
        </Form.Item>
        {type === 1 ? (
          <>
            <Form.Item
              name="file_id"
              label={t('links.form.file')}
              // A validator, not `required`: antd would put aria-required on the select's wrapper, which axe refuses.
              rules={[{ validator: (_, v) => (v ? Promise.resolve() : Promise.reject(new Error(t('links.form.fileRequired')))) }]}
              style={{ marginBottom: 8 }}
            >
              <Select
                showSearch
                optionFilterProp="label"
                loading={files.isLoading}
                options={(files.data ?? []).map((f) => ({ value: f.id, label: f.name }))}
                notFoundContent={null}
              />
            </Form.Item>
            <Flex vertical gap={8} style={{ marginBottom: 16 }}>
              {/* Not the item's `extra`: antd would hang it on the select's wrapper as aria-describedby, which axe refuses. */}
              {fileId ? (
                <FileStatus appId={appId} fileId={fileId} />
              ) : (
                <Typography.Text type="secondary">{t('links.uploadHelp')}</Typography.Text>
              )}
              <Upload
                accept="application/pdf,image/png,image/jpeg"
                showUploadList={false}
                beforeUpload={(file) => {
                  void sendFile(file);
                  return false;
                }}
              >
                <Button icon={<UploadOutlined />} loading={upload.isPending}>
                  {upload.isPending ? t('links.uploading') : t('links.upload')}
                </Button>
              </Upload>
              {uploadError ? <Alert type="error" showIcon message={uploadError} /> : null}
            </Flex>
            <Form.Item name="allow_download" label={t('links.form.allowDownload')} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item name="watermark" label={t('links.form.watermark')} extra={t('links.form.watermarkHelp')} valuePropName="checked">
              <Switch />
            </Form.Item>
          </>
        ) : (
          <Form.Item
            name="website"
            label={t('links.form.website')}
            rules={[{ required: true, pattern: /^https?:\/\/\S+$/i, message: t('links.form.websiteRequired') }]}
          >
            <Input inputMode="url" placeholder={t('links.form.websitePlaceholder')} />
          </Form.Item>
        )}
        <Form.Item name="customer_id" label={t('links.form.customer')} style={{ marginBottom: 4 }}>
          <Select
            allowClear
            showSearch
            filterOption={false}
            placeholder={t('links.form.customerSearch')}
            onSearch={setKeyword}
            loading={customers.isFetching}
            options={(customers.data?.rows ?? []).map((c) => ({
              value: c.id,
              label: [c.name, c.company].filter(Boolean).join(' · ') || c.id,
            }))}
          />
        </Form.Item>
        <Typography.Paragraph type="secondary">{t('links.form.customerHelp')}</Typography.Paragraph>
        <Form.Item
          name="passcode"
          label={t('links.form.passcode')}
          extra={t('links.form.passcodeHelp')}
          rules={[{ min: 4, max: 64, message: t('links.form.passcodeHelp') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
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
        <Suspense fallback={<Skeleton active paragraph={{ rows: 2 }} />}>
          <GateFields emailGate={emailGate} />
        </Suspense>
      </Form>
    </Drawer>
  );
}
