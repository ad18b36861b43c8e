import { Card, Empty, Flex, Segmented, Select, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Composer } from '../useComposer.ts';

/** The server's preview of the draft: as whom, the subject, the recipient count, the mail as HTML (sandboxed) or text. */
export function ComposerPreview({ composer: c }: { composer: Composer }) {
  const { t } = useTranslation();
  const { query: preview, ready, view } = c.preview;
  const count = preview.data?.recipientCount;
  return (
    <Card
      size="small"
      title={
        <Typography.Title level={2} style={{ margin: 0, fontSize: 16 }}>
          {t('campaigns.compose.preview')}
        </Typography.Title>
      }
      extra={
        <Segmented
          size="small"
          value={view}
          onChange={(v) => c.preview.setView(v as 'html' | 'text')}
          options={[
            { value: 'html', label: t('campaigns.compose.previewHtml') },
            { value: 'text', label: t('campaigns.compose.previewText') },
          ]}
        />
      }
    >
      <Flex vertical gap={8}>
        {c.mode === 'customers' ? (
          <Flex gap={8} align="center" wrap>
            <label htmlFor="composer-preview-as">{t('campaigns.compose.previewAs')}</label>
            <Select
              id="composer-preview-as"
              style={{ minWidth: 200, flex: 1 }}
              value={c.preview.shownAs}
              onChange={c.preview.setPreviewAs}
              options={c.preview.previewAsOptions}
            />
          </Flex>
        ) : null}
        <Typography.Text data-testid="preview-subject">
          {t('campaigns.compose.previewSubject', { subject: preview.data?.subject ?? (c.title.trim() || t('common.none')) })}
        </Typography.Text>
        <Typography.Text type="secondary" data-testid="recipient-count" style={{ minHeight: 22 }}>
          {count === null || count === undefined
            ? t('campaigns.compose.noRecipientsYet')
            : t('campaigns.compose.recipientCount', { count })}
        </Typography.Text>
        <Spin spinning={preview.isFetching}>
          <div style={{ height: 480, border: '1px solid #d9d9d9', borderRadius: 6, overflow: 'hidden' }}>
            {!ready || !preview.data ? (
              <Flex align="center" justify="center" style={{ height: '100%' }}>
                <Empty description={t('campaigns.compose.previewEmpty')} />
              </Flex>
            ) : view === 'html' ? (
              <iframe
                title={t('campaigns.compose.previewFrame')}
                sandbox=""
                srcDoc={preview.data.html}
                style={{ width: '100%', height: '100%', border: 0, background: '#fff' }}
              />
            ) : (
              <pre
                tabIndex={0}
                aria-label={t('campaigns.compose.previewText')}
                style={{ margin: 0, padding: 12, height: '100%', overflow: 'auto', whiteSpace: 'pre-wrap' }}
              >
                {preview.data.text}
              </pre>
            )}
          </div>
        </Spin>
      </Flex>
    </Card>
  );
}
