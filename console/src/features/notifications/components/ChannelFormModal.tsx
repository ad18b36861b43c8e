import { Checkbox, Form, Input, InputNumber, Modal, Select } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { CHANNEL_KINDS, CUSTOMER_SIGNALS, type ChannelKind, SIGNALS, type Signal, defaultChannelLocale, takesSecret } from '../model.ts';
import type { ChannelValues, useChannels } from '../useChannels.ts';

/** The form's first values: a new channel's (a WeCom robot posting the customers' signals), or the one changed. */
function initialValues(c: ReturnType<typeof useChannels>): Partial<ChannelValues> {
  const e = c.editing;
  if (e === undefined || e === 'new') return { kind: 'wecom', events: [...CUSTOMER_SIGNALS], readThreshold: 50, locale: 'zh-CN' };
  return {
    kind: e.kind as ChannelKind,
    name: e.name ?? '',
    events: e.events.filter((s): s is Signal => (SIGNALS as readonly string[]).includes(s)),
    readThreshold: e.readThreshold ?? 50,
    locale: e.locale ?? defaultChannelLocale(e.kind),
  };
}

/** Adds or changes a chat channel: the platform, its robot's address, a signing secret where the platform uses one, the alerts, the language. */
export function ChannelFormModal({ channels: c }: { channels: ReturnType<typeof useChannels> }) {
  const { t } = useLazyTexts('notifications');
  const isNew = c.editing === 'new';
  const kind = (Form.useWatch('kind', c.form) as ChannelKind | undefined) ?? 'wecom';
  const events = (Form.useWatch('events', c.form) as Signal[] | undefined) ?? [];
  const existing = c.editing !== undefined && c.editing !== 'new' ? c.editing : undefined;
  return (
    <Modal
      title={isNew ? t('notifications.channels.addTitle') : t('notifications.channels.editTitle')}
      open={c.editing !== undefined}
      onCancel={() => c.setEditing(undefined)}
      onOk={() => c.form.submit()}
      okText={t('common.actions.save')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={c.saving}
      destroyOnHidden
    >
      <Form
        form={c.form}
        layout="vertical"
        requiredMark={false}
        initialValues={initialValues(c)}
        // Each opening starts from its channel's values, not the last form's.
        clearOnDestroy
        onFinish={(v) => void c.submit(v)}
        onValuesChange={(changed: Partial<ChannelValues>) => {
          if (changed.kind) c.form.setFieldValue('locale', defaultChannelLocale(changed.kind));
        }}
      >
        <Form.Item name="kind" label={t('notifications.channels.kind')}>
          <Select disabled={!isNew} options={CHANNEL_KINDS.map((k) => ({ value: k, label: t(`notifications.channels.kinds.${k}`) }))} />
        </Form.Item>
        <Form.Item name="name" label={t('notifications.channels.name')}>
          <Input maxLength={100} placeholder={t('notifications.channels.namePlaceholder')} />
        </Form.Item>
        <Form.Item
          name="url"
          label={t('notifications.channels.url')}
          extra={existing ? t('notifications.channels.urlKeep', { url: existing.url }) : t(`notifications.channels.urlHelp.${kind}`)}
          rules={isNew ? [{ required: true, whitespace: true, message: t('notifications.channels.urlRequired') }] : []}
        >
          <Input inputMode="url" autoComplete="off" />
        </Form.Item>
        {takesSecret(kind) && (
          <Form.Item
            name="secret"
            label={t('notifications.channels.secret')}
            extra={existing?.secret ? t('notifications.channels.secretKeep') : t(`notifications.channels.secretHelp.${kind as 'dingtalk'}`)}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        )}
        <Form.Item
          name="events"
          label={t('notifications.channels.events')}
          rules={[
            {
              validator: (_, v?: string[]) =>
                v?.length ? Promise.resolve() : Promise.reject(new Error(t('notifications.channels.eventsRequired'))),
            },
          ]}
        >
          <Checkbox.Group options={SIGNALS.map((s) => ({ value: s, label: t(`notifications.inbox.signals.${s}`) }))} />
        </Form.Item>
        {events.includes('deck_read') && (
          <Form.Item name="readThreshold" label={t('notifications.channels.readThreshold')}>
            <InputNumber min={0} max={100} precision={0} addonAfter="%" style={{ width: 140 }} />
          </Form.Item>
        )}
        <Form.Item name="locale" label={t('notifications.channels.locale')}>
          <Select
            style={{ width: 200 }}
            options={(['zh-CN', 'en-US'] as const).map((l) => ({ value: l, label: t(`notifications.channels.languages.${l}`) }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
