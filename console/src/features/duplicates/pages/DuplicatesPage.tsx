import { MergeCellsOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, Popconfirm, Radio, Segmented, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { type DuplicateKind, type DuplicateSet, duplicateQueries, useMergeCustomers } from '../api.ts';

const PAGE_SIZE = 20;
const KINDS: DuplicateKind[] = ['phone', 'email', 'name_company'];

/** One set of duplicates: choose the customer that stays, merge the others into it. */
function DuplicateCard({ appId, set, actingUserId }: { appId: string; set: DuplicateSet; actingUserId: number }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const merge = useMergeCustomers(appId, actingUserId);
  // The oldest customer stays by default (the sets come oldest first).
  const [mainId, setMainId] = useState(set.customers[0]?.id ?? '');
  const others = set.customers.filter((c) => c.id !== mainId).map((c) => c.id);
  return (
    <Card
      size="small"
      title={set.value}
      extra={
        <Popconfirm
          title={t('customers.duplicates.confirm', { count: others.length })}
          okText={t('customers.duplicates.merge')}
          cancelText={t('common.actions.cancel')}
          onConfirm={() =>
            void merge.mutateAsync({ mainId, mergeIds: others }).then(() => message.success(t('customers.duplicates.merged')))
          }
        >
          <Button type="primary" size="small" icon={<MergeCellsOutlined />} loading={merge.isPending} disabled={others.length === 0}>
            {t('customers.duplicates.merge')}
          </Button>
        </Popconfirm>
      }
    >
      <Radio.Group value={mainId} onChange={(e) => setMainId(String(e.target.value))} aria-label={t('customers.duplicates.keep')}>
        <Space direction="vertical">
          {set.customers.map((c) => (
            <Radio key={c.id} value={c.id}>
              <Link to={`/p/${appId}/customers/${c.id}`}>{c.name || t('customers.unnamed')}</Link>{' '}
              <Typography.Text type="secondary">
                {[c.company, c.phone, c.email].filter(Boolean).join(' · ')} · {t('customers.created')} {c.createdAt}
              </Typography.Text>
            </Radio>
          ))}
        </Space>
      </Radio.Group>
    </Card>
  );
}

/** Sets of customers that look like one person, to merge (docs/customers.md, "Duplicates" and "Merge"). */
export function DuplicatesPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const by = (KINDS as string[]).includes(params.get('by') ?? '') ? (params.get('by') as DuplicateKind) : 'phone';
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const me = useQuery(meQuery());
  const sets = useQuery(duplicateQueries.list(appId, by, page, PAGE_SIZE));
  const go = (next: { by?: DuplicateKind; page?: number }) =>
    setParams({ by: next.by ?? by, page: String(next.page ?? (next.by ? 1 : page)) });

  return (
    <>
      <PageHeader title={t('customers.duplicates.title')} />
      <Typography.Paragraph type="secondary">{t('customers.duplicates.intro')}</Typography.Paragraph>
      <Segmented
        aria-label={t('customers.duplicates.by')}
        value={by}
        onChange={(v) => go({ by: v as DuplicateKind })}
        options={KINDS.map((k) => ({ value: k, label: t(`customers.duplicates.kinds.${k}`) }))}
        style={{ marginBottom: 16 }}
      />
      {sets.data && sets.data.sets.length === 0 ? <Empty description={t('customers.duplicates.empty')} /> : null}
      <Flex vertical gap={12}>
        {me.data
          ? (sets.data?.sets ?? []).map((s) => (
              <DuplicateCard
                key={`${by}:${s.value}:${s.customers.map((c) => c.id).join(',')}`}
                appId={appId}
                set={s}
                actingUserId={me.data.id}
              />
            ))
          : null}
      </Flex>
      <Flex justify="end" gap={8} style={{ marginTop: 16 }}>
        <Button disabled={page <= 1} onClick={() => go({ page: page - 1 })}>
          {t('common.actions.previous')}
        </Button>
        <Button disabled={!sets.data?.hasMore} onClick={() => go({ page: page + 1 })}>
          {t('common.actions.next')}
        </Button>
      </Flex>
    </>
  );
}
