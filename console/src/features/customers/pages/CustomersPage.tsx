import { ImportOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Flex, Grid, Pagination, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { CustomerFilters } from '../components/CustomerFilters.tsx';
import { CustomerFormDrawer } from '../components/CustomerFormDrawer.tsx';
import { CustomerRows } from '../components/CustomerRows.tsx';
import { ExportButton } from '../import/ExportButton.tsx';
import { ImportNotice } from '../import/ImportNotice.tsx';
import { ImportWizard } from '../import/ImportWizard.tsx';
import { useCustomerList } from '../useCustomerList.ts';

/** The project's customers: search and filters, the list a page at a time, new customer, import and export. */
export function CustomersPage() {
  const { t, i18n } = useTranslation();
  const number = (n: number) => new Intl.NumberFormat(i18n.language).format(n);
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const c = useCustomerList();
  const { appId, params, me, notice, importing } = c;
  return (
    <>
      <PageHeader title={t('customers.title')} />
      {notice.noticed && !importing && (
        <ImportNotice job={notice.noticed} onClose={notice.dismiss} onShow={() => c.setImporting({ resume: notice.noticed?.id })} />
      )}
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
      {c.loaded && (
        <Typography.Paragraph type="secondary" role="status" style={{ marginBottom: 8 }} data-testid="customer-total">
          {c.capped
            ? t('customers.totalCapped', { formatted: number(c.total) })
            : t('customers.total', { count: c.total, formatted: number(c.total) })}
        </Typography.Paragraph>
      )}
      <CustomerRows list={c} wide={wide} />
      {c.total > params.pageSize && (
        <Flex justify="center" style={{ marginTop: 16 }}>
          <Pagination
            current={params.page}
            pageSize={params.pageSize}
            total={c.total}
            showSizeChanger={false}
            showLessItems={!wide}
            size={wide ? 'default' : 'small'}
            showTotal={
              wide ? (total, [from, to]) => t('customers.range', { from: number(from), to: number(to), total: number(total) }) : undefined
            }
            onChange={(page) => c.update({ page: String(page) })}
          />
        </Flex>
      )}
      {me.data && (
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
      )}
      {me.data && (
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
      )}
    </>
  );
}
