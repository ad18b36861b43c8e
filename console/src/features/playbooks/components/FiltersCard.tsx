import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Flex, Input, InputNumber, Radio, Select, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { customerQueries } from '../../customers/index.ts';
import { usePeople } from '../../tasks/index.ts';
import { LIMIT_KINDS, type LimitKind } from '../model.ts';
import type { PlaybookEditor } from '../usePlaybookEditor.ts';

/** Which customers it acts on (their owner, group, field values) and how often for one customer. */
export function FiltersCard({ editor: e }: { editor: PlaybookEditor }) {
  const { t } = useLazyTexts('playbooks');
  const { members } = usePeople(e.appId);
  const groups = useQuery(customerQueries.groups(e.appId));
  const metadata = useQuery(customerQueries.metadata(e.appId));
  const f = e.draft.filters;
  const limit = e.draft.limit;
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('playbooks.filters.title')}</h2>}>
      <Flex vertical gap={12}>
        <Typography.Text type="secondary">{t('playbooks.filters.hint')}</Typography.Text>
        <label>
          <div>{t('playbooks.filters.owners')}</div>
          <Select<number[]>
            mode="multiple"
            aria-label={t('playbooks.filters.owners')}
            placeholder={t('playbooks.filters.anyOwner')}
            optionFilterProp="label"
            style={{ width: '100%' }}
            value={f.ownerIds}
            onChange={(ownerIds) => e.setFilters({ ownerIds })}
            options={members.map((m) => ({ value: m.id, label: m.name }))}
          />
        </label>
        <label>
          <div>{t('playbooks.filters.groups')}</div>
          <Select<string[]>
            mode="multiple"
            aria-label={t('playbooks.filters.groups')}
            placeholder={t('playbooks.filters.anyGroup')}
            optionFilterProp="label"
            style={{ width: '100%' }}
            value={f.groupIds}
            onChange={(groupIds) => e.setFilters({ groupIds })}
            options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
          />
        </label>
        <div role="group" aria-label={t('playbooks.filters.fields')}>
          <div>{t('playbooks.filters.fields')}</div>
          <Flex vertical gap={8}>
            {f.fields.map((field, i) => (
              <Flex key={i} gap={8} wrap>
                <Select
                  aria-label={t('playbooks.filters.field')}
                  showSearch
                  style={{ flex: '1 1 160px' }}
                  value={field.key || undefined}
                  placeholder={t('playbooks.filters.field')}
                  onChange={(key: string) => e.setFilters({ fields: f.fields.map((x, j) => (j === i ? { ...x, key } : x)) })}
                  options={(metadata.data ?? []).map((m) => ({ value: m.name, label: m.title || m.name }))}
                />
                <Input
                  aria-label={t('playbooks.filters.value')}
                  placeholder={t('playbooks.filters.value')}
                  style={{ flex: '1 1 160px' }}
                  value={field.value}
                  onChange={(ev) => e.setFilters({ fields: f.fields.map((x, j) => (j === i ? { ...x, value: ev.target.value } : x)) })}
                />
                <Button
                  type="text"
                  icon={<DeleteOutlined />}
                  aria-label={t('playbooks.filters.removeField')}
                  onClick={() => e.setFilters({ fields: f.fields.filter((_, j) => j !== i) })}
                />
              </Flex>
            ))}
            <div>
              <Button size="small" icon={<PlusOutlined />} onClick={() => e.setFilters({ fields: [...f.fields, { key: '', value: '' }] })}>
                {t('playbooks.filters.addField')}
              </Button>
            </div>
          </Flex>
        </div>
        <div role="group" aria-label={t('playbooks.limit.title')}>
          <div>{t('playbooks.limit.title')}</div>
          <Radio.Group
            value={limit.kind}
            onChange={(ev) => e.set({ limit: { kind: ev.target.value as LimitKind, days: limit.days ?? 7 } })}
            options={LIMIT_KINDS.map((k) => ({ value: k, label: t(`playbooks.limit.${k}`) }))}
          />
          {limit.kind === 'per_period' && (
            <Flex gap={8} align="center" style={{ marginTop: 8 }}>
              <span>{t('playbooks.limit.every')}</span>
              <InputNumber
                aria-label={t('playbooks.limit.days')}
                min={1}
                max={365}
                precision={0}
                status={e.has('limit') ? 'error' : undefined}
                value={limit.days}
                onChange={(days) => e.set({ limit: { kind: 'per_period', days } })}
              />
              <span>{t('playbooks.limit.daysUnit')}</span>
            </Flex>
          )}
        </div>
      </Flex>
    </Card>
  );
}
