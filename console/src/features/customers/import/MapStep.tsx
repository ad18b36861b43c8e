import { Alert, Flex, Radio, Select, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useFieldLabel } from '../components/useFieldLabel.ts';
import { Failure } from './Failure.tsx';
import type { ImportWizardModel } from './useImportWizard.ts';
import { POLICIES, type Policy } from './wizardState.ts';

/** The wizard's second step: the attribute each column fills, the rows' owner and group, and what becomes of duplicates. */
export function MapStep({ wizard: w, wide }: { wizard: ImportWizardModel; wide: boolean }) {
  const { t } = useTranslation();
  const label = useFieldLabel();
  const { mapping, owner, group, policy } = w.state;
  return (
    <Flex vertical gap={16}>
      {w.start.error ? <Failure error={w.start.error} /> : null}
      <Typography.Text type="secondary">{t('customers.import.mapHint')}</Typography.Text>
      <Flex vertical gap={8} role="list" aria-label={t('customers.import.steps.map')}>
        {w.columns.map((c, i) => (
          <Flex
            key={i}
            role="listitem"
            wrap={!wide}
            gap={wide ? 16 : 4}
            align={wide ? 'center' : 'stretch'}
            vertical={!wide}
            style={{ paddingBottom: 8, borderBottom: '1px solid rgba(5,5,5,0.06)' }}
          >
            <Flex vertical style={{ width: wide ? 260 : '100%', minWidth: 0 }}>
              <Typography.Text strong ellipsis>
                {c.column || t('customers.import.columnN', { n: i + 1 })}
              </Typography.Text>
              {w.sample[i] ? (
                <Typography.Text type="secondary" ellipsis style={{ fontSize: 12 }}>
                  {t('customers.import.example', { value: w.sample[i] })}
                </Typography.Text>
              ) : null}
            </Flex>
            <Select
              aria-label={t('customers.import.mapColumn', { column: c.column || i + 1 })}
              style={{ width: wide ? 280 : '100%' }}
              value={mapping[i] ?? ''}
              onChange={(v: string) => w.dispatch({ type: 'map', index: i, attribute: v })}
              showSearch
              optionFilterProp="label"
              options={[
                { value: '', label: t('customers.import.ignore') },
                ...w.fields.map((f) => ({ value: f.name, label: f.required ? `${label(f.name, f.title)} *` : label(f.name, f.title) })),
              ]}
            />
          </Flex>
        ))}
      </Flex>
      {!w.mapped ? (
        <Alert type="error" showIcon message={t('customers.import.noneMapped')} />
      ) : w.missing.length > 0 ? (
        <Alert
          type="warning"
          showIcon
          message={t('customers.import.requiredMissing', { fields: w.missing.map((f) => label(f.name, f.title)).join(', ') })}
        />
      ) : null}
      {w.isManager && (
        <Flex vertical gap={4}>
          <Typography.Text id="import-owner">{t('customers.import.owner')}</Typography.Text>
          <Select
            aria-labelledby="import-owner"
            style={{ width: wide ? 280 : '100%' }}
            value={String(owner)}
            onChange={(v: string) => w.dispatch({ type: 'owner', owner: Number(v) })}
            options={w.owners}
          />
        </Flex>
      )}
      <Flex vertical gap={4}>
        <Typography.Text id="import-group">{t('customers.import.group')}</Typography.Text>
        <Select
          aria-labelledby="import-group"
          style={{ width: wide ? 280 : '100%' }}
          value={group ?? ''}
          onChange={(v: string) => w.dispatch({ type: 'group', group: v || undefined })}
          options={[{ value: '', label: t('customers.noGroup') }, ...w.groups.map((g) => ({ value: g.id, label: g.name }))]}
        />
      </Flex>
      <Flex vertical gap={4}>
        <Typography.Text id="import-policy">{t('customers.import.duplicates')}</Typography.Text>
        <Radio.Group
          aria-labelledby="import-policy"
          value={policy}
          onChange={(e) => w.dispatch({ type: 'policy', policy: e.target.value as Policy })}
        >
          <Space direction="vertical">
            {POLICIES.map((p) => (
              <Radio key={p} value={p}>
                {t(`customers.import.policy.${p}`)}
              </Radio>
            ))}
          </Space>
        </Radio.Group>
      </Flex>
    </Flex>
  );
}
