import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Modal, Select, Spin, Typography } from 'antd';
import { useState } from 'react';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { customerQueries } from '../../customers/index.ts';
import { previewQuery } from '../api.ts';
import type { Step } from '../model.ts';

/**
 * An e-mail step as a customer would get it: a real customer picked by name (their values fill the
 * merge fields; sample values until one is picked), the subject and the mail, sandboxed.
 */
export function MailPreview({ appId, step, onClose }: { appId: string; step: Step | undefined; onClose: () => void }) {
  const { t } = useLazyTexts('sequences');
  const [keyword, setKeyword] = useState('');
  const [customerId, setCustomerId] = useState<string | undefined>();
  const customers = useQuery({
    ...customerQueries.list({ appId, owner: 'all', keyword, group: undefined, page: 1, pageSize: 20 }),
    enabled: step !== undefined,
  });
  const preview = useQuery({
    ...previewQuery(appId, { title: step?.title ?? '', html: step?.html ?? '', customerId }),
    enabled: step !== undefined && step.html.trim() !== '',
  });
  const options = (customers.data?.rows ?? []).map((c) => ({
    value: c.id,
    label: [c.name || t('sequences.preview.unnamed'), c.email].filter(Boolean).join(' · '),
  }));
  return (
    <Modal open={step !== undefined} title={t('sequences.preview.title')} footer={null} onCancel={onClose} width={720} destroyOnHidden>
      <Flex vertical gap={8}>
        <Flex gap={8} align="center" wrap>
          <label htmlFor="sequence-preview-as">{t('sequences.preview.as')}</label>
          <Select
            id="sequence-preview-as"
            style={{ minWidth: 220, flex: 1 }}
            showSearch
            allowClear
            filterOption={false}
            placeholder={t('sequences.preview.sample')}
            onSearch={setKeyword}
            loading={customers.isFetching}
            value={customerId}
            onChange={(v: string | undefined) => setCustomerId(v)}
            options={options}
            notFoundContent={null}
          />
        </Flex>
        <Typography.Text data-testid="sequence-preview-subject">
          {t('sequences.preview.subject', { subject: preview.data?.subject ?? step?.title ?? '' })}
        </Typography.Text>
        {preview.isError && <Typography.Text type="danger">{errorText(preview.error)}</Typography.Text>}
        <Spin spinning={preview.isFetching}>
          <div style={{ height: 400, border: '1px solid #d9d9d9', borderRadius: 6, overflow: 'hidden' }}>
            {preview.data ? (
              <iframe
                title={t('sequences.preview.frame')}
                sandbox=""
                srcDoc={preview.data.html}
                style={{ width: '100%', height: '100%', border: 0, background: '#fff' }}
              />
            ) : (
              <Flex align="center" justify="center" style={{ height: '100%' }}>
                <Empty description={t('sequences.preview.empty')} />
              </Flex>
            )}
          </div>
        </Spin>
      </Flex>
    </Modal>
  );
}
