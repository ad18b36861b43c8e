import { Card, Flex, List, Result, Segmented } from 'antd';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DeferredSelect } from '../../../shared/ui/DeferredSelect.tsx';
import { Pager } from '../../../shared/ui/Pager.tsx';
import type { HomeModel } from '../useHome.ts';
import { AccountItem } from './AccountItem.tsx';
import { HotEmpty } from './HotEmpty.tsx';
import { LeadItem } from './LeadItem.tsx';

/**
 * The hot leads: people (or, switched, accounts: buying groups by company or e-mail domain) whose
 * score rose most recently first; the Master and Admins choose whose customers.
 */
export function HotLeads({ home, wide }: { home: HomeModel; wide: boolean }) {
  const { t } = useLazyTexts('home');
  const { appId, people, hot, view, owner } = home;
  const data = hot.data;
  const empty = <HotEmpty appId={appId} manages={people.manages} filtered={owner !== 'all'} />;
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('home.hot.title')}</h2>} data-testid="hot-leads">
      <Flex wrap gap={8} align="center" style={{ marginBottom: 8 }}>
        <Segmented
          aria-label={t('home.hot.view')}
          value={view}
          onChange={(v) => home.update({ view: v })}
          options={[
            { value: 'people' as const, label: t('home.hot.people') },
            { value: 'accounts' as const, label: t('home.hot.accounts') },
          ]}
        />
        {people.manages && (
          <DeferredSelect
            aria-label={t('home.hot.owner')}
            style={{ width: wide ? 200 : '100%' }}
            value={owner}
            onChange={(v) => home.update({ owner: v })}
            options={[
              { value: 'all', label: t('home.hot.allOwners') },
              ...people.members.map((m) => ({ value: String(m.id), label: m.name })),
            ]}
          />
        )}
      </Flex>
      {hot.isError ? (
        <Result status="warning" title={t('home.hot.loadFailed')} subTitle={errorText(hot.error)} />
      ) : data?.view === 'accounts' ? (
        <List
          loading={home.loading || home.replacing}
          dataSource={data.accounts}
          rowKey={(a) => `${a.accountType}:${a.account}`}
          locale={{ emptyText: home.loading ? ' ' : empty }}
          renderItem={(a) => (
            <List.Item>
              <AccountItem appId={appId} account={a} />
            </List.Item>
          )}
        />
      ) : (
        <List
          loading={home.loading || home.replacing}
          dataSource={data?.leads ?? []}
          rowKey="customerId"
          locale={{ emptyText: home.loading ? ' ' : empty }}
          renderItem={(lead) => (
            <List.Item>
              <LeadItem appId={appId} lead={lead} owner={people.manages ? people.nameOf(Number(lead.svcUserId)) : undefined} />
            </List.Item>
          )}
        />
      )}
      <Pager page={home.page} hasMore={Boolean(data?.hasMore)} onPage={(page) => home.update({ page })} />
    </Card>
  );
}
