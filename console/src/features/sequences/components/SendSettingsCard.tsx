import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Checkbox, Flex, Input, InputNumber, Select, Skeleton, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { SecretField } from '../../../shared/ui/SecretField.tsx';
import { type SettingsBody, sequenceQueries, useSaveSettings } from '../api.ts';
import { minutesOf, sortedDays } from '../model.ts';

const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

/** The zones a browser knows, for the picker; the saved one first when it is not among them. */
function zones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) ? known : [current, ...known];
}

/**
 * The project's sending rules for sequences (Master and Admin change them; others read them): the
 * send window (hours and weekdays in the customer's zone when known, else the zone set here), the
 * e-mail steps a sending member may send a day, and the reply address with its inbound webhook.
 */
export function SendSettingsCard({ appId, manages }: { appId: string; manages: boolean }) {
  const { t } = useLazyTexts('sequences');
  const { message } = App.useApp();
  const stored = useQuery(sequenceQueries.settings(appId));
  const save = useSaveSettings(appId);
  const [v, setV] = useState<SettingsBody | undefined>();
  // The form starts from the stored settings once: a refetch in the background (a refocused window,
  // another tab's save) does not wipe what the Master is typing. A save's answer becomes the new start.
  useEffect(() => {
    if (stored.data && v === undefined) {
      const { inboundUrl: _url, ...rest } = stored.data;
      setV(rest);
    }
  }, [stored.data, v]);
  const zoneOptions = useMemo(() => zones(v?.timeZone ?? 'UTC').map((z) => ({ value: z, label: z })), [v?.timeZone]);
  if (!v || !stored.data) return <Skeleton active paragraph={{ rows: 4 }} />;
  const badWindow = minutesOf(v.windowStart) === null || minutesOf(v.windowEnd) === null || v.windowStart >= v.windowEnd;
  const set = (change: Partial<SettingsBody>) => setV({ ...v, ...change });
  const submit = () =>
    save.mutate(
      { ...v, days: sortedDays(v.days), replyAddress: v.replyAddress?.trim() ? v.replyAddress.trim() : null },
      {
        onSuccess: () => void message.success(t('sequences.settings.saved')),
        onError: (err) => {
          const detail = errorDetail(err);
          void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
        },
      },
    );
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('sequences.settings.title')}</h2>} id="send-settings">
      <Flex vertical gap={12}>
        <Typography.Text type="secondary">{t('sequences.settings.hint')}</Typography.Text>
        {!manages && <Typography.Text type="secondary">{t('sequences.settings.readOnly')}</Typography.Text>}
        <Flex gap={12} wrap align="end">
          <label>
            <div>{t('sequences.settings.from')}</div>
            <Input
              type="time"
              aria-label={t('sequences.settings.from')}
              value={v.windowStart}
              disabled={!manages}
              status={badWindow ? 'error' : undefined}
              onChange={(e) => set({ windowStart: e.target.value })}
              style={{ width: 130 }}
            />
          </label>
          <label>
            <div>{t('sequences.settings.to')}</div>
            <Input
              type="time"
              aria-label={t('sequences.settings.to')}
              value={v.windowEnd}
              disabled={!manages}
              status={badWindow ? 'error' : undefined}
              onChange={(e) => set({ windowEnd: e.target.value })}
              style={{ width: 130 }}
            />
          </label>
          <label style={{ flex: '1 1 220px' }}>
            <div>{t('sequences.settings.zone')}</div>
            <Select
              aria-label={t('sequences.settings.zone')}
              showSearch
              disabled={!manages}
              value={v.timeZone}
              onChange={(timeZone: string) => set({ timeZone })}
              options={zoneOptions}
              style={{ width: '100%' }}
            />
          </label>
        </Flex>
        {badWindow && <Typography.Text type="danger">{t('sequences.settings.badWindow')}</Typography.Text>}
        <div role="group" aria-label={t('sequences.settings.days')}>
          <div>{t('sequences.settings.days')}</div>
          <Checkbox.Group
            disabled={!manages}
            value={v.days}
            onChange={(days) => set({ days: days as number[] })}
            options={WEEKDAYS.map((d) => ({ value: d, label: t(`sequences.weekdays.${d}`) }))}
          />
        </div>
        <Flex gap={12} wrap>
          <label style={{ flex: '1 1 200px' }}>
            <div>{t('sequences.settings.cap')}</div>
            <InputNumber
              aria-label={t('sequences.settings.cap')}
              min={1}
              max={10000}
              precision={0}
              disabled={!manages}
              value={v.dailyCap}
              onChange={(dailyCap) => set({ dailyCap: dailyCap ?? 1 })}
              style={{ width: '100%' }}
            />
          </label>
          <label style={{ flex: '2 1 260px' }}>
            <div>{t('sequences.settings.reply')}</div>
            <Input
              type="email"
              aria-label={t('sequences.settings.reply')}
              placeholder={t('sequences.settings.replyHint')}
              disabled={!manages}
              value={v.replyAddress ?? ''}
              onChange={(e) => set({ replyAddress: e.target.value })}
            />
          </label>
        </Flex>
        {manages && stored.data.inboundUrl && (
          <div>
            <div>{t('sequences.settings.inbound')}</div>
            <SecretField secret={stored.data.inboundUrl} label={t('sequences.settings.inbound')} />
            <Typography.Paragraph type="secondary" style={{ fontSize: 13, margin: '4px 0 0' }}>
              {t('sequences.settings.inboundHint')}
            </Typography.Paragraph>
          </div>
        )}
        {manages && (
          <div>
            <Button type="primary" onClick={submit} loading={save.isPending} disabled={badWindow || v.days.length === 0}>
              {t('sequences.settings.save')}
            </Button>
          </div>
        )}
      </Flex>
    </Card>
  );
}
