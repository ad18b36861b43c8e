import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Col,
  DatePicker,
  Empty,
  Flex,
  Form,
  Input,
  Modal,
  Radio,
  Row,
  Segmented,
  Select,
  Spin,
  Typography,
} from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import type { Dayjs } from 'dayjs';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link, useNavigate, useParams } from 'react-router';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { toServerTime } from '../../../shared/time/serverTime.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { customerQueries } from '../../customers/index.ts';
import { type CampaignInput, type Draft, campaignQueries, useCreateCampaign, useSendTest } from '../api.ts';
import { type Field, fieldOf } from '../model.ts';

/** The merge fields the server fills (docs/campaigns.md). */
const MERGE_FIELDS = ['name', 'email', 'company', 'title', 'phone'] as const;

interface Picked {
  value: string;
  label: string;
}

interface Values {
  title: string;
  html: string;
  mode: 'customers' | 'group';
  customers: Picked[];
  group?: string;
  when: 'now' | 'later';
  sendAt?: Dayjs | null;
}

const messages = (err: unknown) => [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x));

/** A value that settles: the last one given, once it has not changed for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(JSON.parse(key) as T), ms);
    return () => clearTimeout(timer);
  }, [key, ms]);
  return settled;
}

/**
 * A new e-mail campaign: subject, HTML body with merge fields, recipients (customers found by search,
 * or a group), send time; the server's preview of the mail beside it (sandboxed, no script), a test
 * mail to the user's own address, then Send after a confirmation with the recipient count.
 */
export function ComposerPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const body = useRef<TextAreaRef>(null);
  const [keyword, setKeyword] = useState('');
  const [view, setView] = useState<'html' | 'text'>('html');
  const [confirming, setConfirming] = useState(false);
  const [formError, setFormError] = useState<string[]>();
  const sendTest = useSendTest(appId);
  const create = useCreateCampaign(appId);

  const title = Form.useWatch('title', form) ?? '';
  const html = Form.useWatch('html', form) ?? '';
  const mode = Form.useWatch('mode', form) ?? 'customers';
  const picked = Form.useWatch('customers', form) ?? [];
  const group = Form.useWatch('group', form);
  const [previewAs, setPreviewAs] = useState('');
  const when = Form.useWatch('when', form) ?? 'now';

  const customers = useQuery(customerQueries.list({ appId, owner: 'all', keyword, group: undefined, page: 1, pageSize: 20 }));
  const groups = useQuery(customerQueries.groups(appId));

  const recipients: Pick<Draft, 'customer_ids' | 'group_id'> =
    mode === 'group' ? (group ? { group_id: group } : {}) : picked.length > 0 ? { customer_ids: picked.map((c) => c.value) } : {};
  // The same list while the picked customers stay: a new list on each render (a preview arriving)
  // moved the keyboard's highlighted option back to the chosen one.
  const previewAsOptions = useMemo(
    () => [{ value: '', label: t('campaigns.compose.sample') }, ...picked.map((c) => ({ value: c.value, label: c.label }))],
    [picked, t],
  );
  const shownAs = mode === 'customers' && picked.some((c) => c.value === previewAs) ? previewAs : '';
  const draft: Draft = { title, html, ...(shownAs ? { customer_id: shownAs } : {}), ...recipients };
  const settled = useSettled(draft, 400);
  const ready = settled.title.trim() !== '' && settled.html.trim() !== '';
  const preview = useQuery({ ...campaignQueries.preview(appId, settled), enabled: ready });

  // The server's verdict on the draft lands on the field it names, and leaves it when the draft is good again.
  const shownByPreview = useRef<Field | undefined>(undefined);
  useEffect(() => {
    const previous = shownByPreview.current;
    if (preview.isError) {
      const field = fieldOf((preview.error as { code?: string }).code ?? '');
      if (previous && previous !== field) form.setFields([{ name: formName(previous, mode), errors: [] }]);
      if (field) form.setFields([{ name: formName(field, mode), errors: messages(preview.error) }]);
      shownByPreview.current = field;
    } else if (preview.isSuccess && previous) {
      form.setFields([{ name: formName(previous, mode), errors: [] }]);
      shownByPreview.current = undefined;
    }
  }, [preview.isError, preview.isSuccess, preview.error, form, mode]);

  const insert = (field: string) => {
    const el = body.current?.resizableTextArea?.textArea;
    const current: string = form.getFieldValue('html') ?? '';
    const start = el?.selectionStart ?? current.length;
    const end = el?.selectionEnd ?? current.length;
    const mark = `{{${field}}}`;
    form.setFieldValue('html', current.slice(0, start) + mark + current.slice(end));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + mark.length, start + mark.length);
    });
  };

  const showFailure = (err: unknown) => {
    const field = fieldOf((err as { code?: string }).code ?? '');
    if (field) form.setFields([{ name: formName(field, mode), errors: messages(err) }]);
    else setFormError(messages(err));
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

  const send = async () => {
    const v = form.getFieldsValue(true) as Values;
    const input: CampaignInput = {
      title: v.title,
      html: v.html,
      ...recipients,
      ...(v.when === 'later' && v.sendAt ? { send_at: toServerTime(v.sendAt) } : {}),
    };
    try {
      const campaign = await create.mutateAsync(input);
      setConfirming(false);
      void navigate(`/p/${appId}/posts/${campaign.postId}`);
    } catch (err) {
      setConfirming(false);
      showFailure(err);
    }
  };

  // The count of the draft as it is now: while a change is being previewed (or the answer shown is an
  // earlier draft's, or has no count for the recipients chosen), the confirmation waits for it.
  const hasRecipients = recipients.customer_ids !== undefined || recipients.group_id !== undefined;
  const counting =
    JSON.stringify(draft) !== JSON.stringify(settled) ||
    preview.isFetching ||
    preview.isPlaceholderData ||
    (hasRecipients && !preview.isError && typeof preview.data?.recipientCount !== 'number');
  const count = counting || preview.isError ? undefined : preview.data?.recipientCount;
  const sendAt = Form.useWatch('sendAt', form);

  return (
    <>
      <Link to={`/p/${appId}/posts`}>
        <ArrowLeftOutlined /> {t('campaigns.backToList')}
      </Link>
      <PageHeader title={t('campaigns.compose.title')} />
      {formError ? <Alert type="error" showIcon message={formError[0]} description={formError[1]} style={{ marginBottom: 16 }} /> : null}
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={12}>
          <Form<Values>
            form={form}
            layout="vertical"
            requiredMark={false}
            initialValues={{ mode: 'customers', customers: [], when: 'now', title: '', html: '' }}
            onFinish={() => {
              setFormError(undefined);
              setConfirming(true);
            }}
          >
            <Form.Item
              name="title"
              label={t('campaigns.compose.subject')}
              rules={[{ required: true, whitespace: true, message: t('campaigns.compose.subjectRequired') }]}
            >
              <Input maxLength={1000} />
            </Form.Item>
            <Flex wrap gap={8} align="center" role="group" aria-label={t('campaigns.compose.insertField')} style={{ marginBottom: 8 }}>
              <Typography.Text type="secondary">{t('campaigns.compose.insertField')}</Typography.Text>
              {MERGE_FIELDS.map((f) => (
                <Button key={f} size="small" onClick={() => insert(f)} title={t(`campaigns.compose.fields.${f}`)}>
                  {`{{${f}}}`}
                </Button>
              ))}
            </Flex>
            <Form.Item
              name="html"
              label={t('campaigns.compose.body')}
              extra={t('campaigns.compose.bodyHelp')}
              rules={[{ required: true, whitespace: true, message: t('campaigns.compose.bodyRequired') }]}
            >
              <Input.TextArea ref={body} autoSize={{ minRows: 10, maxRows: 24 }} spellCheck={false} style={{ fontFamily: 'monospace' }} />
            </Form.Item>
            <Form.Item name="mode" label={t('campaigns.compose.recipients')}>
              <Radio.Group
                optionType="button"
                options={[
                  { value: 'customers', label: t('campaigns.compose.byCustomers') },
                  { value: 'group', label: t('campaigns.compose.byGroup') },
                ]}
              />
            </Form.Item>
            {mode === 'customers' ? (
              <Form.Item
                name="customers"
                label={t('campaigns.compose.customers')}
                rules={[
                  {
                    validator: (_, v: Picked[]) =>
                      v?.length ? Promise.resolve() : Promise.reject(new Error(t('campaigns.compose.recipientsRequired'))),
                  },
                ]}
              >
                <Select<Picked[]>
                  mode="multiple"
                  labelInValue
                  showSearch
                  filterOption={false}
                  placeholder={t('campaigns.compose.customerSearch')}
                  onSearch={setKeyword}
                  loading={customers.isFetching}
                  notFoundContent={null}
                  options={(customers.data?.rows ?? []).map((c) => ({
                    value: c.id,
                    label: [c.name, c.email].filter(Boolean).join(' · ') || c.id,
                  }))}
                />
              </Form.Item>
            ) : (
              <Form.Item
                name="group"
                label={t('campaigns.compose.group')}
                rules={[{ validator: (_, v) => (v ? Promise.resolve() : Promise.reject(new Error(t('campaigns.compose.groupRequired')))) }]}
              >
                <Select
                  showSearch
                  optionFilterProp="label"
                  loading={groups.isLoading}
                  options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
                />
              </Form.Item>
            )}
            <Form.Item name="when" label={t('campaigns.compose.when')}>
              <Radio.Group
                options={[
                  { value: 'now', label: t('campaigns.compose.now') },
                  { value: 'later', label: t('campaigns.compose.later') },
                ]}
              />
            </Form.Item>
            {when === 'later' ? (
              <Form.Item
                name="sendAt"
                label={t('campaigns.compose.sendAt')}
                extra={t('campaigns.compose.sendAtHelp')}
                rules={[
                  { validator: (_, v) => (v ? Promise.resolve() : Promise.reject(new Error(t('campaigns.compose.sendAtRequired')))) },
                ]}
              >
                <DatePicker
                  showTime={{ format: 'HH:mm' }}
                  format="YYYY-MM-DD HH:mm"
                  style={{ width: '100%' }}
                  disabledDate={(d) => d.isBefore(new Date(), 'day')}
                />
              </Form.Item>
            ) : null}
            <Flex wrap gap={8} vertical>
              <Flex wrap gap={8}>
                <Button onClick={() => void test()} loading={sendTest.isPending}>
                  {t('campaigns.compose.sendTest')}
                </Button>
                <Button type="primary" htmlType="submit">
                  {t('campaigns.compose.send')}
                </Button>
              </Flex>
              <div role="status" aria-live="polite">
                {sendTest.isSuccess ? (
                  <Alert type="success" showIcon message={t('campaigns.compose.testSent', { to: sendTest.data.to })} />
                ) : sendTest.isError ? (
                  <Alert type="error" showIcon message={messages(sendTest.error)[0]} description={messages(sendTest.error)[1]} />
                ) : null}
              </div>
            </Flex>
          </Form>
        </Col>
        <Col xs={24} lg={12}>
          <Card
            size="small"
            title={
              <Typography.Title level={2} style={{ margin: 0, fontSize: 16 }}>
                {t('campaigns.compose.preview')}
              </Typography.Title>
            }
            extra={
              <Segmented
                size="small"
                value={view}
                onChange={(v) => setView(v as 'html' | 'text')}
                options={[
                  { value: 'html', label: t('campaigns.compose.previewHtml') },
                  { value: 'text', label: t('campaigns.compose.previewText') },
                ]}
              />
            }
          >
            <Flex vertical gap={8}>
              {mode === 'customers' ? (
                <Flex gap={8} align="center" wrap>
                  <label htmlFor="composer-preview-as">{t('campaigns.compose.previewAs')}</label>
                  <Select
                    id="composer-preview-as"
                    style={{ minWidth: 200, flex: 1 }}
                    value={shownAs}
                    onChange={setPreviewAs}
                    options={previewAsOptions}
                  />
                </Flex>
              ) : null}
              <Typography.Text data-testid="preview-subject">
                {t('campaigns.compose.previewSubject', { subject: preview.data?.subject ?? (title.trim() || t('common.none')) })}
              </Typography.Text>
              <Typography.Text type="secondary" data-testid="recipient-count" style={{ minHeight: 22 }}>
                {preview.data?.recipientCount === null || preview.data?.recipientCount === undefined
                  ? t('campaigns.compose.noRecipientsYet')
                  : t('campaigns.compose.recipientCount', { count: preview.data.recipientCount })}
              </Typography.Text>
              <Spin spinning={preview.isFetching}>
                <div style={{ height: 480, border: '1px solid #d9d9d9', borderRadius: 6, overflow: 'hidden' }}>
                  {!ready || !preview.data ? (
                    <Flex align="center" justify="center" style={{ height: '100%' }}>
                      <Empty description={t('campaigns.compose.previewEmpty')} />
                    </Flex>
                  ) : view === 'html' ? (
                    <iframe
                      title={t('campaigns.compose.previewFrame')}
                      sandbox=""
                      srcDoc={preview.data.html}
                      style={{ width: '100%', height: '100%', border: 0, background: '#fff' }}
                    />
                  ) : (
                    <pre
                      tabIndex={0}
                      aria-label={t('campaigns.compose.previewText')}
                      style={{ margin: 0, padding: 12, height: '100%', overflow: 'auto', whiteSpace: 'pre-wrap' }}
                    >
                      {preview.data.text}
                    </pre>
                  )}
                </div>
              </Spin>
            </Flex>
          </Card>
        </Col>
      </Row>
      <Modal
        open={confirming}
        title={t('campaigns.compose.confirmTitle')}
        okText={t('campaigns.compose.confirmSend')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={create.isPending}
        okButtonProps={{ disabled: counting }}
        onOk={() => void send()}
        onCancel={() => setConfirming(false)}
      >
        <Typography.Paragraph>
          {counting
            ? t('campaigns.compose.counting')
            : count === null || count === undefined
              ? t('campaigns.compose.confirmUnknown', { subject: title.trim() })
              : t('campaigns.compose.confirmBody', { count, subject: title.trim() })}
        </Typography.Paragraph>
        <Typography.Paragraph type="secondary">
          {when === 'later' && sendAt
            ? t('campaigns.compose.confirmLater', { time: sendAt.format('YYYY-MM-DD HH:mm') })
            : t('campaigns.compose.confirmNow')}
        </Typography.Paragraph>
      </Modal>
    </>
  );
}

/** The form field that shows a failure of `field`. */
function formName(field: Field, mode: Values['mode']): keyof Values {
  if (field === 'recipients') return mode === 'group' ? 'group' : 'customers';
  return field;
}
