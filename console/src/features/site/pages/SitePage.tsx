import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Form, Input, Popconfirm, Skeleton, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { SecretField } from '../../../shared/ui/SecretField.tsx';
import { siteQueries, useRotateSite, useSaveSiteOrigins } from '../api.ts';
import { LastEventCard } from '../LastEventCard.tsx';

/**
 * The snippet as a page should carry it: first the queue stub, so that calls made before the script
 * has loaded wait in `rapport.q` (docs/site-tracking.md), then the server's script tag.
 */
const QUEUE_STUB = '<script>window.rapport=window.rapport||function(){(rapport.q=rapport.q||[]).push(arguments)};</script>';
const withQueue = (snippet: string) => `${QUEUE_STUB}\n${snippet}`;

/** Site tracking's setup: the origins, the snippet to paste, the site secret, and their rotation. */
export function SitePage() {
  const { t } = useTranslation();
  const { appId = '' } = useParams();
  const { message } = App.useApp();
  const settings = useQuery(siteQueries.settings(appId));
  const save = useSaveSiteOrigins(appId);
  const rotate = useRotateSite(appId);
  const [form] = Form.useForm<{ origins: string }>();

  useEffect(() => {
    if (settings.data) form.setFieldsValue({ origins: settings.data.siteOrigins.split(',').join('\n') });
  }, [settings.data, form]);

  const submit = async (values: { origins: string }) => {
    try {
      await save.mutateAsync(
        values.origins
          .split(/[\n,]/)
          .map((o) => o.trim())
          .filter((o) => o !== '')
          .join(','),
      );
      void message.success(t('site.saved'));
    } catch (err) {
      form.setFields([{ name: 'origins', errors: [errorText(err)] }]);
    }
  };

  return (
    <>
      <PageHeader title={t('site.title')} />
      {settings.isLoading || !settings.data ? (
        <Skeleton active />
      ) : (
        <Flex vertical gap={16}>
          <Card title={t('site.origins.title')}>
            <Form form={form} layout="vertical" onFinish={(v) => void submit(v)}>
              <Form.Item name="origins" label={t('site.origins.label')} extra={t('site.origins.help')}>
                <Input.TextArea rows={3} placeholder={t('site.origins.placeholder')} />
              </Form.Item>
              <Button type="primary" htmlType="submit" loading={save.isPending}>
                {t('site.origins.save')}
              </Button>
            </Form>
          </Card>
          <Card title={t('site.snippet.title')}>
            <Typography.Paragraph>{t('site.snippet.help')}</Typography.Paragraph>
            <Typography.Paragraph copyable={{ text: withQueue(settings.data.snippet) }}>
              <pre aria-label={t('site.snippet.title')} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>
                <code>{withQueue(settings.data.snippet)}</code>
              </pre>
            </Typography.Paragraph>
            <Popconfirm
              title={t('site.key.confirm')}
              onConfirm={() => void rotate.mutateAsync('key').then(() => message.success(t('site.key.rotated')))}
            >
              <Button loading={rotate.isPending}>{t('site.key.rotate')}</Button>
            </Popconfirm>
          </Card>
          <LastEventCard appId={appId} />
          <Card title={t('site.secret.title')}>
            <Typography.Paragraph>{t('site.secret.help')}</Typography.Paragraph>
            <Typography.Paragraph>
              <SecretField label={t('site.secret.title')} secret={settings.data.siteSecret} />
            </Typography.Paragraph>
            <Popconfirm
              title={t('site.secret.confirm')}
              onConfirm={() => void rotate.mutateAsync('secret').then(() => message.success(t('site.secret.rotated')))}
            >
              <Button loading={rotate.isPending}>{t('site.secret.rotate')}</Button>
            </Popconfirm>
          </Card>
        </Flex>
      )}
    </>
  );
}
