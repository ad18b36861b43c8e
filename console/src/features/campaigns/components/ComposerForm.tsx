import { Alert, Button, DatePicker, Flex, Form, Input, Radio, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { type ComposerValues, MERGE_FIELDS, type Picked } from '../model.ts';
import type { Composer } from '../useComposer.ts';

const required = (message: string) => (_: unknown, v: unknown) => (v ? Promise.resolve() : Promise.reject(new Error(message)));

/** The composer's form: subject, body with its merge-field buttons, recipients, send time, Send test and Send. */
export function ComposerForm({ composer: c }: { composer: Composer }) {
  const { t } = useTranslation();
  return (
    <Form<ComposerValues>
      form={c.form}
      layout="vertical"
      requiredMark={false}
      initialValues={{ mode: 'customers', customers: [], when: 'now', title: '', html: '' }}
      onFinish={c.confirmation.confirm}
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
          <Button key={f} size="small" onClick={() => c.insert(f)} title={t(`campaigns.compose.fields.${f}`)}>
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
        <Input.TextArea ref={c.body} autoSize={{ minRows: 10, maxRows: 24 }} spellCheck={false} style={{ fontFamily: 'monospace' }} />
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
      {c.mode === 'customers' ? (
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
            onSearch={c.search.setKeyword}
            loading={c.search.searching}
            notFoundContent={null}
            options={c.search.options}
          />
        </Form.Item>
      ) : (
        <Form.Item
          name="group"
          label={t('campaigns.compose.group')}
          rules={[{ validator: required(t('campaigns.compose.groupRequired')) }]}
        >
          <Select showSearch optionFilterProp="label" loading={c.groups.loading} options={c.groups.options} />
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
      {c.when === 'later' ? (
        <Form.Item
          name="sendAt"
          label={t('campaigns.compose.sendAt')}
          extra={t('campaigns.compose.sendAtHelp')}
          rules={[{ validator: required(t('campaigns.compose.sendAtRequired')) }]}
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
          <Button onClick={() => void c.test.run()} loading={c.test.pending}>
            {t('campaigns.compose.sendTest')}
          </Button>
          <Button type="primary" htmlType="submit">
            {t('campaigns.compose.send')}
          </Button>
        </Flex>
        <div role="status" aria-live="polite">
          {c.test.sent ? (
            <Alert type="success" showIcon message={t('campaigns.compose.testSent', { to: c.test.sent.to })} />
          ) : c.test.failure ? (
            <Alert type="error" showIcon message={c.test.failure[0]} description={c.test.failure[1]} />
          ) : null}
        </div>
      </Flex>
    </Form>
  );
}
