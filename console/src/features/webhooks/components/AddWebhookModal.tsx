import { Checkbox, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { DOMAIN_TYPES } from '../api.ts';
import type { useWebhooks } from '../useWebhooks.ts';

/** A new webhook: the address events are sent to, and which kinds of event (all of them at first). */
export function AddWebhookModal({ webhooks: w }: { webhooks: ReturnType<typeof useWebhooks> }) {
  const { t } = useTranslation();
  return (
    <Modal
      title={t('webhooks.addTitle')}
      open={w.adding}
      onCancel={() => w.setAdding(false)}
      onOk={() => w.form.submit()}
      okText={t('common.actions.save')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={w.creating}
      destroyOnHidden
    >
      <Form
        form={w.form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ types: [...DOMAIN_TYPES] }}
        onFinish={(v) => void w.submit(v)}
      >
        <Form.Item
          name="url"
          label={t('webhooks.url')}
          extra={t('webhooks.urlHelp')}
          rules={[{ required: true, whitespace: true, message: t('webhooks.urlRequired') }]}
        >
          <Input inputMode="url" placeholder={t('webhooks.urlPlaceholder')} />
        </Form.Item>
        <Form.Item
          name="types"
          label={t('webhooks.types')}
          rules={[
            { validator: (_, v?: string[]) => (v?.length ? Promise.resolve() : Promise.reject(new Error(t('webhooks.typesRequired')))) },
          ]}
        >
          <Checkbox.Group options={DOMAIN_TYPES.map((d) => ({ value: d, label: t(`webhooks.domainTypes.${d}`) }))} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
