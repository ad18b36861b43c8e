import { ImportOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Flex } from 'antd';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Muted } from '../../../shared/ui/Muted.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { PageNumbers } from '../../../shared/ui/PageNumbers.tsx';
import { isWideNow, useWide } from '../../../shared/ui/useWide.ts';
import { BulkNotice } from '../bulk/BulkNotice.tsx';
import { SelectionBanner } from '../bulk/SelectionBanner.tsx';
import { useSelection } from '../bulk/useSelection.ts';
import { CustomerFilters } from '../components/CustomerFilters.tsx';
import { CustomerRows, preloadRows } from '../components/CustomerRows.tsx';
import { ExportButton } from '../import/ExportButton.tsx';
import { ImportNotice } from '../import/ImportNotice.tsx';
import { useCustomerList } from '../useCustomerList.ts';

// Opened on demand: their code (the upload, the steps, the form's controls) is not in the first load.
const ImportWizard = lazy(() => import('../import/ImportWizard.tsx').then((m) => ({ default: m.ImportWizard })));
// Bulk actions' bar and progress load once rows are chosen or a job is followed.
const BulkBar = lazy(() => import('../bulk/BulkBar.tsx').then((m) => ({ default: m.BulkBar })));
const BulkProgress = lazy(() => import('../bulk/BulkProgress.tsx').then((m) => ({ default: m.BulkProgress })));
const CustomerFormDrawer = lazy(() => import('../components/CustomerFormDrawer.tsx').then((m) => ({ default: m.CustomerFormDrawer })));
// The list's view (the table or the cards) is fetched with the page, not after its first render.
preloadRows(isWideNow());

/** The project's customers: search and filters, the list a page at a time (rows picked for bulk actions), new customer, import and export. */
export function CustomersPage() {
  const { t, i18n } = useTranslation();
  const number = (n: number) => new Intl.NumberFormat(i18n.language).format(n);
  const { message } = App.useApp();
  const wide = useWide();
  const c = useCustomerList();
  const { appId, params, me, notice, importing } = c;
  const selection = useSelection(params);
  const [bulkJob, setBulkJob] = useState<string | null>(null);
  return (
    <>
      <PageHeader title={t('customers.title')} />
      {notice.noticed && !importing && (
        <ImportNotice job={notice.noticed} onClose={notice.dismiss} onShow={() => c.setImporting({ resume: notice.noticed?.id })} />
      )}
      {bulkJob === null && <BulkNotice appId={appId} me={me.data?.id} onShow={setBulkJob} />}
      {/* Search and filters first, then the actions: the keyboard meets them in the order they are drawn. */}
      <Flex wrap gap={8} justify="space-between" align="start" style={{ marginBottom: 16 }}>
        <CustomerFilters list={c} wide={wide} />
        <Flex wrap gap={8}>
          <Button icon={<ImportOutlined />} onClick={() => c.setImporting({})} disabled={!me.data}>
            {t('customers.import.button')}
          </Button>
          <ExportButton params={params} isManager={c.seesAll} />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => c.setCreating(true)} loading={me.isLoading}>
            {t('customers.new')}
          </Button>
        </Flex>
      </Flex>
      {selection.any && (
        <Suspense fallback={null}>
          <BulkBar list={c} selection={selection} onStarted={(job) => setBulkJob(job.id)} />
        </Suspense>
      )}
      {c.loaded && (
        <Muted block role="status" style={{ marginBottom: 8 }} data-testid="customer-total">
          {c.capped
            ? t('customers.totalCapped', { formatted: number(c.total) })
            : t('customers.total', { count: c.total, formatted: number(c.total) })}
        </Muted>
      )}
      <SelectionBanner
        selection={selection}
        pageIds={c.rows.map((r) => r.id)}
        more={c.total > params.pageSize}
        total={c.loaded && !c.capped && c.total <= 10_000 ? c.total : undefined}
      />
      <CustomerRows list={c} wide={wide} selection={selection} />
      {c.total > params.pageSize && (
        <Flex justify="center" style={{ marginTop: 16 }}>
          <PageNumbers
            current={params.page}
            pageSize={params.pageSize}
            total={c.total}
            compact={!wide}
            showTotal={
              wide ? (total, [from, to]) => t('customers.range', { from: number(from), to: number(to), total: number(total) }) : undefined
            }
            onChange={(page) => c.update({ page: String(page) })}
          />
        </Flex>
      )}
      {me.data && importing !== null && (
        <Suspense fallback={null}>
          <ImportWizard
            appId={appId}
            me={me.data.id}
            isManager={c.seesAll}
            open={importing !== null}
            resume={importing?.resume}
            onClose={(seenEnded) => {
              c.setImporting(null);
              notice.seen(seenEnded);
            }}
          />
        </Suspense>
      )}
      {bulkJob !== null && (
        <Suspense fallback={null}>
          <BulkProgress appId={appId} jobId={bulkJob} wide={wide} onClose={() => setBulkJob(null)} />
        </Suspense>
      )}
      {me.data && c.creating && (
        <Suspense fallback={null}>
          <CustomerFormDrawer
            appId={appId}
            actingUserId={me.data.id}
            open={c.creating}
            onClose={() => c.setCreating(false)}
            onSaved={() => {
              c.setCreating(false);
              void message.success(t('customers.created'));
            }}
          />
        </Suspense>
      )}
    </>
  );
}
