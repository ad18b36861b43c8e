import { Button, Form, Radio, Select, Space, Switch, Typography } from 'antd';
import { useMemo } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { Settings } from '../api.ts';
import { EMAIL_MODES, browserTimeZone, hourText, timeZones, zonedTime } from '../model.ts';

const HOURS = Array.from({ length: 24 }, (_, h) => h);

/** Where to tell the member: the inbox, e-mail (at once or a daily summary at their hour, in their zone), and the language. */
export function DeliveryFields({ settings }: { settings: Settings }) {
  const { t, i18n } = useLazyTexts('notifications');
  const form = Form.useFormInstance();
  const email = Form.useWatch('email') as string | undefined;
  const zone = Form.useWatch('timeZone') as string | undefined;
  const mine = browserTimeZone();
  const zones = useMemo(() => timeZones(settings.timeZone).map((z) => ({ value: z, label: z.replaceAll('_', ' ') })), [settings.timeZone]);
  return (
    <>
      <Form.Item
        name="inbox"
        valuePropName="checked"
        label={t('notifications.settings.inbox')}
        extra={t('notifications.settings.inboxHelp')}
        layout="horizontal"
      >
        <Switch />
      </Form.Item>
      <Form.Item
        name="email"
        label={t('notifications.settings.email')}
        extra={
          settings.emailAddress
            ? t('notifications.settings.emailTo', { address: settings.emailAddress })
            : t('notifications.settings.noAddress')
        }
      >
        <Radio.Group>
          <Space direction="vertical">
            {EMAIL_MODES.map((m) => (
              <Radio key={m} value={m}>
                {t(`notifications.settings.emailModes.${m}`)}
              </Radio>
            ))}
          </Space>
        </Radio.Group>
      </Form.Item>
      {email === 'digest' && (
        <Space wrap size={16} align="start">
          <Form.Item name="digestHour" label={t('notifications.settings.digestHour')}>
            <Select style={{ width: 120 }} virtual={false} options={HOURS.map((h) => ({ value: h, label: hourText(h) }))} />
          </Form.Item>
          <Form.Item
            name="timeZone"
            label={t('notifications.settings.timeZone')}
            extra={
              zone !== mine ? (
                <Button type="link" size="small" style={{ paddingInline: 0 }} onClick={() => form.setFieldValue('timeZone', mine)}>
                  {t('notifications.settings.useMyZone', { zone: mine })}
                </Button>
              ) : null
            }
          >
            <Select showSearch style={{ width: 260, maxWidth: '100%' }} options={zones} />
          </Form.Item>
        </Space>
      )}
      {email === 'digest' && settings.email === 'digest' && settings.nextDigestAt ? (
        <Typography.Paragraph type="secondary">
          {t('notifications.settings.nextDigest', { time: zonedTime(settings.nextDigestAt, settings.timeZone, i18n.language) })}
        </Typography.Paragraph>
      ) : null}
      <Form.Item name="locale" label={t('notifications.settings.language')}>
        <Select
          style={{ width: 200 }}
          options={(['zh-CN', 'en-US'] as const).map((l) => ({ value: l, label: t(`notifications.channels.languages.${l}`) }))}
        />
      </Form.Item>
    </>
  );
}
