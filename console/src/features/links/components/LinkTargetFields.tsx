import { CheckCircleFilled, UploadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Input, Radio, Select, Switch, Typography, Upload } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type LinkItem, linkQueries } from '../api.ts';
import type { LinkFormValues } from '../linkForm.ts';
import { linkKind } from '../model.ts';
import type { DeckUpload } from '../useLinkForm.ts';

/*
 * What a link shares, in the link form (a new link and an edit alike): the kind, the deck (chosen or
 * uploaded) or the web address, and a deck's reading options.
 */

/** The status line of the chosen file: pages being prepared, ready, or why it failed. */
function FileStatus({ appId, fileId }: { appId: string; fileId: string }) {
  const { t } = useTranslation();
  const file = useQuery(linkQueries.file(appId, fileId));
  if (!file.data) return null;
  const f = file.data;
  if (f.status === 'failed') return <Alert type="error" showIcon message={t('links.form.fileFailed', { why: f.failure ?? '' })} />;
  if (f.status === 'processing')
    return (
      <Typography.Text type="secondary" data-file-status="processing">
        {t('links.form.fileProcessing', { done: f.renderedPages, total: f.pageCount })}
      </Typography.Text>
    );
  return (
    <Typography.Text data-file-status="ready">
      <CheckCircleFilled style={{ color: '#2e7d32' }} /> {t('links.form.fileReady', { count: f.pageCount })}
    </Typography.Text>
  );
}

/** A deck: chosen from the project's files or uploaded here, its pages' status under it. */
function DeckField({ appId, upload }: { appId: string; upload: DeckUpload }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance<LinkFormValues>();
  const fileId = Form.useWatch('file_id', form);
  const files = useQuery(linkQueries.files(appId));
  return (
    <>
      <Form.Item
        name="file_id"
        label={t('links.form.file')}
        // A validator, not `required`: antd would put aria-required on the select's wrapper, which axe refuses.
        rules={[{ validator: (_, v) => (v ? Promise.resolve() : Promise.reject(new Error(t('links.form.fileRequired')))) }]}
        style={{ marginBottom: 8 }}
      >
        <Select
          showSearch
          optionFilterProp="label"
          loading={files.isLoading}
          options={(files.data ?? []).map((f) => ({ value: f.id, label: f.name }))}
          notFoundContent={null}
        />
      </Form.Item>
      <Flex vertical gap={8} style={{ marginBottom: 16 }}>
        {/* Not the item's `extra`: antd would hang it on the select's wrapper as aria-describedby, which axe refuses. */}
        {fileId ? (
          <FileStatus appId={appId} fileId={fileId} />
        ) : (
          <Typography.Text type="secondary">{t('links.uploadHelp')}</Typography.Text>
        )}
        <Upload
          accept="application/pdf,image/png,image/jpeg"
          showUploadList={false}
          beforeUpload={(file) => {
            void upload.send(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} loading={upload.pending}>
            {upload.pending ? t('links.uploading') : t('links.upload')}
          </Button>
        </Upload>
        {upload.error ? <Alert type="error" showIcon message={upload.error} /> : null}
      </Flex>
    </>
  );
}

/** A deck's reading options: download and watermark (a data room's too). */
function DeckOptions() {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item name="allow_download" label={t('links.form.allowDownload')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name="watermark" label={t('links.form.watermark')} extra={t('links.form.watermarkHelp')} valuePropName="checked">
        <Switch />
      </Form.Item>
    </>
  );
}

/** Whether the form now shares something else than the link did: another kind, deck or address. */
function useTargetChanged(link: LinkItem | undefined): boolean {
  const form = Form.useFormInstance<LinkFormValues>();
  const type = Form.useWatch('type', form) ?? 1;
  const fileId = Form.useWatch('file_id', form);
  const website = Form.useWatch('website', form);
  if (!link) return false;
  if (type !== link.type) return true;
  return type === 1 ? Boolean(fileId) && fileId !== link.file1 : Boolean(website?.trim()) && website?.trim() !== link.website;
}

/** What changing what a link shares does to those who have it (the texts load with the form's gates). */
function TargetChange() {
  const { t } = useLazyTexts('linkGates');
  return <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={t('linkGates.edit.targetChange')} />;
}

/** What the link shares: a deck (with its options) or a web address; a data room's link keeps its room. */
export function TargetFields({ appId, upload, link }: { appId: string; upload: DeckUpload; link?: LinkItem | undefined }) {
  const { t } = useTranslation();
  const type = Form.useWatch('type', Form.useFormInstance<LinkFormValues>()) ?? 1;
  const changed = useTargetChanged(link);
  if (link && linkKind(link.type) === 'room') return <RoomTarget />;
  return (
    <>
      <Form.Item name="type" label={t('links.form.type')}>
        <Radio.Group
          optionType="button"
          options={([1, 2, 3] as const).map((v) => ({
            value: v,
            label: t(`links.kinds.${v === 1 ? 'file' : v === 2 ? 'web' : 'redirect'}`),
          }))}
        />
      </Form.Item>
      {type === 1 ? (
        <DeckField appId={appId} upload={upload} />
      ) : (
        <Form.Item
          name="website"
          label={t('links.form.website')}
          rules={[{ required: true, pattern: /^https?:\/\/\S+$/i, message: t('links.form.websiteRequired') }]}
        >
          <Input inputMode="url" placeholder={t('links.form.websitePlaceholder')} />
        </Form.Item>
      )}
      {changed ? <TargetChange /> : null}
      {type === 1 ? <DeckOptions /> : null}
    </>
  );
}

/** A room link's target, shown and kept: the form has no room to choose. */
function RoomTarget() {
  const { t } = useLazyTexts('linkGates');
  return (
    <>
      <Form.Item label={t('links.form.type')} extra={t('linkGates.edit.roomKept')}>
        <Typography.Text strong>{t('links.kinds.room')}</Typography.Text>
      </Form.Item>
      <DeckOptions />
    </>
  );
}
