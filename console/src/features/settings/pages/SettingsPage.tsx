import { SyncOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Form, Input, List, Popconfirm, Skeleton, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorCode, errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { SecretField } from '../../../shared/ui/SecretField.tsx';
import { RegionSelect } from '../../../shared/regions/RegionSelect.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import { authQueries } from '../../auth/index.ts';
import { memberQueries } from '../../members/index.ts';
import { projectQueries } from '../../projects/index.ts';
import { ScoringCard } from '../../scoring/index.ts';
import { type AuditEntry, settingsQueries, useEditProject, useRotateSecret } from '../api.ts';
import { isKnownAuditAction } from '../auditActions.ts';
import { LogoCard } from '../LogoCard.tsx';

interface ProjectForm {
  name: string;
  description: string;
  region: string;
  shareDomain: string;
}

const h2 = (text: string) => <h2 style={{ fontSize: 16, margin: 0 }}>{text}</h2>;

/** The project's settings: its name, description, region and share domain, the secret integrations use, and who changed what. */
export function SettingsPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const projects = useQuery(projectQueries.mine());
  const project = projects.data?.find((p) => p.id === appId);
  const myRole = members.data?.find((m) => m.svcUserId === me.data?.id)?.role;
  const manages = myRole === 'Master' || myRole === 'Admin';
  const edit = useEditProject(appId);
  const rotate = useRotateSecret(appId);
  const [form] = Form.useForm<ProjectForm>();
  const info = useQuery({ ...authQueries.serverInfo(), enabled: manages });
  const serverHost = info.data ? new URL(info.data.publicBaseUrl).hostname : '';
  const [revealed, setRevealed] = useState(false);
  const [rotated, setRotated] = useState<{ previousSecretValidUntil: string }>();
  const [auditPage, setAuditPage] = useState(1);
  const audit = useQuery({ ...settingsQueries.audit(appId, auditPage), enabled: manages });

  useEffect(() => {
    if (project) {
      form.setFieldsValue({
        name: project.name,
        description: project.description ?? '',
        region: project.region,
        shareDomain: project.shareDomain,
      });
    }
  }, [project, form]);

  if (projects.isLoading || members.isLoading) return <Skeleton active paragraph={{ rows: 8 }} />;

  const save = async (v: ProjectForm) => {
    try {
      const share_domain = (v.shareDomain ?? '').trim();
      await edit.mutateAsync({ name: v.name.trim(), description: v.description ?? '', region: v.region, share_domain });
      void message.success(t('settings.saved'));
    } catch (err) {
      const field = errorCode(err)?.startsWith('share_domain_') ? 'shareDomain' : 'name';
      form.setFields([{ name: field, errors: [errorText(err), errorDetail(err)].filter((x): x is string => Boolean(x)) }]);
    }
  };
  const secret = project?.secret ?? '';
  const memberName = (id: string | null) => {
    if (id === null) return t('settings.audit.system');
    const m = members.data?.find((x) => String(x.svcUserId) === id);
    return m?.user?.userName || m?.user?.phoneNum || m?.user?.email || t('settings.audit.user', { id });
  };
  const actionText = (e: AuditEntry) => (isKnownAuditAction(e.action) ? t(`settings.audit.actions.${e.action}`) : e.action);

  return (
    <>
      <PageHeader title={t('settings.title')} />
      <Flex vertical gap={16}>
        <Card size="small" title={h2(t('settings.project'))}>
          <Form
            form={form}
            layout="vertical"
            requiredMark={false}
            disabled={!manages}
            onFinish={(v) => void save(v)}
            style={{ maxWidth: 560 }}
          >
            <Form.Item
              name="name"
              label={t('settings.name')}
              rules={[{ required: true, whitespace: true, message: t('settings.nameRequired') }]}
            >
              <Input maxLength={255} />
            </Form.Item>
            <Form.Item name="description" label={t('settings.description')}>
              <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} maxLength={2000} />
            </Form.Item>
            <Form.Item name="region" label={t('settings.region')} extra={t('settings.regionHelp')}>
              <RegionSelect disabled={!manages} />
            </Form.Item>
            <Form.Item
              name="shareDomain"
              label={t('settings.shareDomain')}
              extra={serverHost ? t('settings.shareDomainHelp', { host: serverHost }) : undefined}
            >
              <Input maxLength={253} placeholder={t('settings.shareDomainPlaceholder')} spellCheck={false} autoComplete="off" />
            </Form.Item>
            {manages ? (
              <Button type="primary" htmlType="submit" loading={edit.isPending}>
                {t('common.actions.save')}
              </Button>
            ) : (
              <Typography.Text type="secondary">{t('settings.readOnly')}</Typography.Text>
            )}
          </Form>
        </Card>
        <ScoringCard appId={appId} manages={manages} />
        {manages && <LogoCard appId={appId} title={h2(t('settings.logo.title'))} />}
        {manages && (
          <Card size="small" title={h2(t('settings.secret.title'))}>
            <Typography.Paragraph type="secondary">{t('settings.secret.help')}</Typography.Paragraph>
            <Flex vertical gap={12}>
              <SecretField label={t('settings.secret.title')} secret={secret} revealed={revealed} onRevealedChange={setRevealed} />
              <div>
                <Popconfirm
                  title={t('settings.secret.rotateConfirmTitle')}
                  description={<div style={{ maxWidth: 320 }}>{t('settings.secret.rotateConfirm')}</div>}
                  okText={t('settings.secret.rotate')}
                  cancelText={t('common.actions.cancel')}
                  onConfirm={() =>
                    void rotate.mutateAsync().then((r) => {
                      setRotated(r);
                      setRevealed(true);
                      void message.success(t('settings.secret.rotated'));
                    })
                  }
                >
                  <Button icon={<SyncOutlined />} loading={rotate.isPending}>
                    {t('settings.secret.rotate')}
                  </Button>
                </Popconfirm>
              </div>
              {rotated && (
                <Alert
                  type="warning"
                  showIcon
                  role="status"
                  message={t('settings.secret.rotatedTitle')}
                  description={
                    <>
                      {t('settings.secret.previousValid')} <DateTime value={rotated.previousSecretValidUntil} />
                    </>
                  }
                />
              )}
            </Flex>
          </Card>
        )}
        {manages && (
          <Card size="small" title={h2(t('settings.audit.title'))}>
            <List
              loading={audit.isLoading}
              dataSource={audit.data?.rows ?? []}
              locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('settings.audit.empty')} /> }}
              renderItem={(e) => (
                <List.Item>
                  <Flex justify="space-between" gap={8} wrap style={{ width: '100%' }}>
                    <span>
                      <Typography.Text strong>{memberName(e.svcUserId)}</Typography.Text> {actionText(e)}
                    </span>
                    <Typography.Text type="secondary">
                      <DateTime value={e.createdAt} />
                    </Typography.Text>
                  </Flex>
                </List.Item>
              )}
            />
            {(auditPage > 1 || audit.data?.hasMore) && (
              <Flex justify="center" align="center" gap={12} style={{ marginTop: 12 }}>
                <Button disabled={auditPage <= 1} onClick={() => setAuditPage(auditPage - 1)}>
                  {t('common.actions.previous')}
                </Button>
                <Typography.Text>{t('common.page.of', { page: auditPage })}</Typography.Text>
                <Button disabled={!audit.data?.hasMore} onClick={() => setAuditPage(auditPage + 1)}>
                  {t('common.actions.next')}
                </Button>
              </Flex>
            )}
          </Card>
        )}
      </Flex>
    </>
  );
}
