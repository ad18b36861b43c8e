import { Flex, Form, InputNumber, Switch, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { REVISIT_DAYS, SIGNALS } from '../model.ts';

/** What to tell the member: a row per signal, in words, with its switch; a reading's row has its share of pages, a return's its days. */
export function SignalRows() {
  const { t } = useLazyTexts('notifications');
  const readOn = Form.useWatch(['on', 'deck_read']) as boolean | undefined;
  const revisitOn = Form.useWatch(['on', 'revisit']) as boolean | undefined;
  return (
    <Flex vertical role="list" aria-label={t('notifications.settings.what')}>
      {SIGNALS.map((signal) => {
        const label = t(`notifications.settings.signals.${signal}`);
        return (
          <Flex
            key={signal}
            role="listitem"
            data-signal={signal}
            justify="space-between"
            align="center"
            wrap
            gap={8}
            style={{ padding: '10px 0', borderBottom: '1px solid #f0f0f0' }}
          >
            <Flex vertical gap={4} style={{ flex: '1 1 220px', minWidth: 0 }}>
              <Typography.Text>{label}</Typography.Text>
              {signal === 'deck_read' && (
                <Flex align="center" gap={8} wrap>
                  <Typography.Text type="secondary">{t('notifications.settings.threshold')}</Typography.Text>
                  <Form.Item name="readThreshold" noStyle rules={[{ required: true }]}>
                    <InputNumber
                      min={0}
                      max={100}
                      precision={0}
                      addonAfter="%"
                      disabled={readOn === false}
                      aria-label={t('notifications.settings.thresholdLabel')}
                      style={{ width: 110 }}
                    />
                  </Form.Item>
                </Flex>
              )}
              {signal === 'revisit' && (
                <Flex align="center" gap={8} wrap>
                  <Typography.Text type="secondary">{t('notifications.settings.revisitAfter')}</Typography.Text>
                  <Form.Item name="revisitDays" noStyle rules={[{ required: true }]}>
                    <InputNumber
                      min={REVISIT_DAYS.min}
                      max={REVISIT_DAYS.max}
                      precision={0}
                      addonAfter={t('notifications.settings.days')}
                      disabled={revisitOn === false}
                      aria-label={t('notifications.settings.revisitDaysLabel')}
                      style={{ width: 130 }}
                    />
                  </Form.Item>
                </Flex>
              )}
            </Flex>
            <Form.Item name={['on', signal]} valuePropName="checked" noStyle>
              <Switch aria-label={label} />
            </Form.Item>
          </Flex>
        );
      })}
    </Flex>
  );
}
