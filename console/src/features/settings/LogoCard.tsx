import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Popconfirm, Skeleton, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorDetail, errorText } from '../../shared/i18n/errors.ts';
import { logoQuery, useLogo } from './logo.api.ts';

/** The largest logo the server takes (docs/projects.md, "Logo"); a larger one is refused here first. */
const MAX_BYTES = 512 * 1024;

/** The project's logo: what the public viewer shows beside the project's name, and its icon. */
export function LogoCard({ appId, title }: { appId: string; title: React.ReactNode }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const logo = useQuery(logoQuery(appId));
  const { upload, remove } = useLogo(appId);
  const [problem, setProblem] = useState<string>();

  const send = async (file: File) => {
    setProblem(undefined);
    if (file.size > MAX_BYTES) return setProblem(t('settings.logo.tooLarge'));
    try {
      await upload.mutateAsync(file);
      void message.success(t('settings.logo.saved'));
    } catch (err) {
      setProblem([errorText(err), errorDetail(err)].filter(Boolean).join(' — '));
    }
  };

  return (
    <Card size="small" title={title}>
      <Typography.Paragraph type="secondary">{t('settings.logo.help')}</Typography.Paragraph>
      {logo.isLoading ? (
        <Skeleton.Image active />
      ) : (
        <Flex gap={16} align="center" wrap>
          {logo.data?.url ? (
            <img src={logo.data.url} alt={t('settings.logo.current')} style={{ height: 48, maxWidth: 160, objectFit: 'contain' }} />
          ) : (
            <Typography.Text type="secondary">{t('settings.logo.none')}</Typography.Text>
          )}
          <Upload
            accept="image/png,image/jpeg"
            showUploadList={false}
            beforeUpload={(file) => {
              void send(file);
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={upload.isPending}>
              {logo.data?.url ? t('settings.logo.replace') : t('settings.logo.upload')}
            </Button>
          </Upload>
          {logo.data?.url && (
            <Popconfirm
              title={t('settings.logo.removeConfirm')}
              okText={t('settings.logo.remove')}
              cancelText={t('common.actions.cancel')}
              onConfirm={() => void remove.mutateAsync().then(() => message.success(t('settings.logo.removed')))}
            >
              <Button icon={<DeleteOutlined />} loading={remove.isPending}>
                {t('settings.logo.remove')}
              </Button>
            </Popconfirm>
          )}
        </Flex>
      )}
      {problem && <Alert style={{ marginTop: 12 }} type="error" showIcon message={problem} role="alert" />}
    </Card>
  );
}
