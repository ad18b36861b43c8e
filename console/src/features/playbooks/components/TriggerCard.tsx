import { useQuery } from '@tanstack/react-query';
import { Card, Flex, Input, InputNumber, Select, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { playbookQueries } from '../api.ts';
import { CONDITIONS, TRIGGER_KINDS, type TriggerKind } from '../model.ts';
import type { PlaybookEditor } from '../usePlaybookEditor.ts';

const num = (v: number | null): number | undefined => (v === null ? undefined : v);

/** When the playbook fires: what the customer did, and the conditions the trigger's kind takes. */
export function TriggerCard({ editor: e }: { editor: PlaybookEditor }) {
  const { t } = useLazyTexts('playbooks');
  const { kind, conditions: c } = e.draft.trigger;
  const links = useQuery(playbookQueries.links(e.appId));
  const shown = new Set(CONDITIONS[kind]);
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('playbooks.trigger.title')}</h2>}>
      <Flex vertical gap={12}>
        <label>
          <div>{t('playbooks.trigger.kind')}</div>
          <Select<TriggerKind>
            aria-label={t('playbooks.trigger.kind')}
            style={{ width: '100%' }}
            value={kind}
            onChange={e.setKind}
            options={TRIGGER_KINDS.map((k) => ({ value: k, label: t(`playbooks.kinds.${k}`) }))}
          />
        </label>
        {shown.has('linkId') && (
          <label>
            <div>{t('playbooks.trigger.link')}</div>
            <Select
              aria-label={t('playbooks.trigger.link')}
              allowClear
              showSearch
              optionFilterProp="label"
              placeholder={t('playbooks.trigger.anyLink')}
              style={{ width: '100%' }}
              loading={links.isLoading}
              value={c.linkId}
              onChange={(linkId: string | undefined) => e.setConditions({ linkId })}
              options={(links.data ?? []).map((l) => ({ value: l.id, label: l.name }))}
            />
          </label>
        )}
        <Flex gap={12} wrap>
          {shown.has('readShare') && (
            <label style={{ flex: '1 1 160px' }}>
              <div>{t('playbooks.trigger.readShare')}</div>
              <InputNumber
                aria-label={t('playbooks.trigger.readShare')}
                min={1}
                max={100}
                precision={0}
                addonAfter="%"
                style={{ width: '100%' }}
                value={c.readShare}
                onChange={(v) => e.setConditions({ readShare: num(v) })}
              />
            </label>
          )}
          {shown.has('page') && (
            <label style={{ flex: '1 1 160px' }}>
              <div>{t('playbooks.trigger.page')}</div>
              <InputNumber
                aria-label={t('playbooks.trigger.page')}
                min={1}
                precision={0}
                placeholder={t('playbooks.trigger.anyPage')}
                style={{ width: '100%' }}
                value={c.page}
                onChange={(v) => e.setConditions({ page: num(v) })}
              />
            </label>
          )}
          {shown.has('seconds') && (
            <label style={{ flex: '1 1 160px' }}>
              <div>{t('playbooks.trigger.seconds')}</div>
              <InputNumber
                aria-label={t('playbooks.trigger.seconds')}
                min={1}
                precision={0}
                style={{ width: '100%' }}
                value={c.seconds}
                onChange={(v) => e.setConditions({ seconds: num(v) })}
              />
            </label>
          )}
          {shown.has('score') && (
            <label style={{ flex: '1 1 160px' }}>
              <div>{t('playbooks.trigger.score')}</div>
              <InputNumber
                aria-label={t('playbooks.trigger.score')}
                min={1}
                style={{ width: '100%' }}
                status={e.has('score') ? 'error' : undefined}
                value={c.score}
                onChange={(v) => e.setConditions({ score: num(v) })}
              />
            </label>
          )}
        </Flex>
        {shown.has('url') && (
          <label>
            <div>{t('playbooks.trigger.url')}</div>
            <Input
              aria-label={t('playbooks.trigger.url')}
              placeholder={t('playbooks.trigger.urlHint')}
              value={c.url ?? ''}
              onChange={(ev) => e.setConditions({ url: ev.target.value })}
            />
          </label>
        )}
        {shown.has('repeats') && (
          <Flex gap={8} align="center" wrap role="group" aria-label={t('playbooks.trigger.repeats')}>
            <span>{t('playbooks.trigger.repeatsBefore')}</span>
            <InputNumber
              aria-label={t('playbooks.trigger.repeatCount')}
              min={1}
              max={100}
              precision={0}
              style={{ width: 80 }}
              value={c.repeats?.count}
              onChange={(v) => e.setConditions({ repeats: v === null ? undefined : { count: v, withinDays: c.repeats?.withinDays ?? 7 } })}
            />
            <span>{t('playbooks.trigger.repeatsWithin')}</span>
            <InputNumber
              aria-label={t('playbooks.trigger.repeatDays')}
              min={1}
              max={90}
              precision={0}
              style={{ width: 80 }}
              disabled={!c.repeats}
              value={c.repeats?.withinDays}
              onChange={(v) => c.repeats && e.setConditions({ repeats: { ...c.repeats, withinDays: v ?? 1 } })}
            />
            <span>{t('playbooks.trigger.days')}</span>
          </Flex>
        )}
        <Typography.Text type="secondary" style={{ fontSize: 13 }}>
          {t(`playbooks.kindHints.${kind}`)}
        </Typography.Text>
      </Flex>
    </Card>
  );
}
