import { ArrowLeftOutlined, DeleteOutlined, ExperimentOutlined } from '@ant-design/icons';
import { Button, Card, Col, Flex, Input, Popconfirm, Result, Row, Skeleton, Switch, Typography } from 'antd';
import { Suspense } from 'react';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { ActionsCard } from '../components/ActionsCard.tsx';
import { DryRunCard } from '../components/DryRunCard.tsx';
import { FiltersCard } from '../components/FiltersCard.tsx';
import { TriggerCard } from '../components/TriggerCard.tsx';
import { usePlaybookEditor } from '../usePlaybookEditor.ts';

function Playbook() {
  const e = usePlaybookEditor();
  const { t } = useLazyTexts('playbooks');
  const back = (
    <Link to={`/p/${e.appId}/playbooks`}>
      <ArrowLeftOutlined /> {t('playbooks.page.back')}
    </Link>
  );
  if (e.playbookId && e.stored.isError) return <Result status="404" title={t('playbooks.page.notFound')} extra={back} />;
  if (e.playbookId && !e.stored.data) return <Skeleton active paragraph={{ rows: 8 }} />;
  return (
    <>
      {back}
      <PageHeader
        title={e.playbookId ? e.stored.data?.name : t('playbooks.page.new')}
        extra={
          e.playbookId && (
            <Popconfirm
              title={t('playbooks.editor.deleteConfirm')}
              okText={t('playbooks.editor.delete')}
              okButtonProps={{ danger: true }}
              onConfirm={e.remove}
            >
              <Button danger icon={<DeleteOutlined />} loading={e.removing}>
                {t('playbooks.editor.delete')}
              </Button>
            </Popconfirm>
          )
        }
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={14}>
          <Flex vertical gap={16}>
            <Card size="small">
              <label htmlFor="playbook-name">{t('playbooks.editor.name')}</label>
              <Input
                id="playbook-name"
                style={{ marginTop: 4 }}
                maxLength={100}
                placeholder={t('playbooks.editor.nameHint')}
                status={e.has('name') ? 'error' : undefined}
                value={e.draft.name}
                onChange={(ev) => e.set({ name: ev.target.value })}
              />
              {e.has('name') && <Typography.Text type="danger">{t('playbooks.editor.nameRequired')}</Typography.Text>}
              <Flex gap={8} align="center" style={{ marginTop: 12 }}>
                <Switch id="playbook-enabled" checked={e.draft.enabled} onChange={(enabled) => e.set({ enabled })} />
                <label htmlFor="playbook-enabled">{t('playbooks.editor.enabled')}</label>
              </Flex>
            </Card>
            <TriggerCard editor={e} />
            <FiltersCard editor={e} />
            <ActionsCard editor={e} />
            <Flex gap={8} wrap justify="flex-end">
              <Button icon={<ExperimentOutlined />} onClick={e.tryIt} loading={e.dryRun.isPending}>
                {t('playbooks.editor.dryRun')}
              </Button>
              <Button type="primary" onClick={e.submit} loading={e.saving}>
                {t('playbooks.editor.save')}
              </Button>
            </Flex>
          </Flex>
        </Col>
        <Col xs={24} lg={10}>
          <Flex vertical gap={16}>
            <Card size="small">
              <Typography.Text type="secondary">{t('playbooks.editor.dryRunHint')}</Typography.Text>
            </Card>
            <DryRunCard editor={e} />
          </Flex>
        </Col>
      </Row>
    </>
  );
}

/** A playbook's editor: its trigger, filters, actions and limit, saved or tried in a dry run over the last 30 days. */
export function PlaybookPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Playbook />
    </Suspense>
  );
}
