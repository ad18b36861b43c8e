import { DownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Table } from 'antd';
import { useState } from 'react';
import { saveFile } from '../../../shared/api/download.ts';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { LinkItem } from '../api.ts';
import { ACCEPTANCE_PAGE_SIZE, acceptancesCsv, gateQueries } from '../gatesApi.ts';

/** Who accepted a link's agreement (name, address, version, when), 10 a page, and every acceptance as CSV. */
export function LinkAgreements({ appId, link }: { appId: string; link: LinkItem }) {
  const { t } = useLazyTexts('linkGates');
  const { message } = App.useApp();
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const acceptances = useQuery(gateQueries.acceptances(appId, link.id, page));
  const rows = acceptances.data?.rows ?? [];

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveFile(await acceptancesCsv(appId, link.id));
      void message.success(t('linkGates.detail.exported'));
    } catch (err) {
      void message.error(errorText(err));
    } finally {
      setExporting(false);
    }
  };

  return (
    <Card
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('linkGates.detail.acceptances')}</h2>}
      extra={
        <Button size="small" icon={<DownloadOutlined />} loading={exporting} disabled={rows.length === 0} onClick={() => void exportCsv()}>
          {t('linkGates.detail.export')}
        </Button>
      }
    >
      <Table
        size="small"
        rowKey="id"
        loading={acceptances.isLoading}
        dataSource={rows}
        scroll={{ x: 'max-content' }}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={acceptances.isError ? t('linkGates.detail.loadFailed') : t('linkGates.detail.acceptancesEmpty')}
            />
          ),
        }}
        pagination={{
          current: page,
          pageSize: ACCEPTANCE_PAGE_SIZE,
          // The API counts no total: one page more while a next one is there.
          total: (page - 1) * ACCEPTANCE_PAGE_SIZE + rows.length + (acceptances.data?.hasMore ? 1 : 0),
          showSizeChanger: false,
          hideOnSinglePage: true,
          onChange: setPage,
        }}
        columns={[
          { key: 'name', title: t('linkGates.detail.name'), render: (_, a) => a.name || t('common.none') },
          { key: 'email', title: t('linkGates.detail.email'), render: (_, a) => a.email || t('common.none') },
          { key: 'version', title: t('linkGates.detail.version'), dataIndex: 'version' },
          { key: 'at', title: t('linkGates.detail.acceptedAt'), render: (_, a) => <DateTime value={a.acceptedAt} /> },
        ]}
      />
    </Card>
  );
}
