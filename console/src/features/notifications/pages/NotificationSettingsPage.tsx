import { Button, Card, Flex, Form, Result, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { DeliveryFields } from '../components/DeliveryFields.tsx';
import { ProjectScopes } from '../components/ProjectScopes.tsx';
import { SignalRows } from '../components/SignalRows.tsx';
import { type SettingsValues, useSettingsForm } from '../useSettingsForm.ts';

function SettingsForm() {
  const { t } = useLazyTexts('notifications');
  const { settings, form, submit, saving } = useSettingsForm();
  if (settings.isLoading) return <Skeleton active paragraph={{ rows: 8 }} />;
  if (!settings.data)
    return <Result status="warning" title={t('notifications.settings.loadFailed')} subTitle={errorText(settings.error)} />;
  return (
    <>
      <PageHeader title={t('notifications.settings.title')} />
      <Typography.Paragraph type="secondary">{t('notifications.settings.intro')}</Typography.Paragraph>
      <Form<SettingsValues> form={form} layout="vertical" requiredMark={false} onFinish={(v) => void submit(v)}>
        <Flex vertical gap={16}>
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('notifications.settings.what')}</h2>} size="small">
            <SignalRows />
          </Card>
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('notifications.settings.where')}</h2>} size="small">
            <DeliveryFields settings={settings.data} />
            <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
              {t('notifications.settings.chatHelp')}
            </Typography.Paragraph>
          </Card>
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('notifications.settings.projects')}</h2>} size="small">
            <Typography.Paragraph type="secondary">{t('notifications.settings.projectsHelp')}</Typography.Paragraph>
            <ProjectScopes projects={settings.data.projects} />
          </Card>
          <div>
            <Button type="primary" htmlType="submit" loading={saving}>
              {t('notifications.settings.save')}
            </Button>
          </div>
        </Flex>
      </Form>
    </>
  );
}

/** The member's notification settings: what they are told, where (inbox, e-mail at once or a daily summary), per project. */
export function NotificationSettingsPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <SettingsForm />
    </Suspense>
  );
}
