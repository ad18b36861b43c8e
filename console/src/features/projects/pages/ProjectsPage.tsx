import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, Form, Input, List, Modal, Skeleton, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { RegionSelect } from '../../../shared/regions/RegionSelect.tsx';
import { browserRegion } from '../../../shared/regions/regions.ts';
import { projectQueries, useAnswerMembership, useCreateProject } from '../api.ts';

/** The projects the user works in, invitations to accept, and a new project. */
export function ProjectsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const projects = useQuery(projectQueries.mine());
  const pending = useQuery(projectQueries.pending());
  const create = useCreateProject();
  const answer = useAnswerMembership();
  const [creating, setCreating] = useState(false);
  const [form] = Form.useForm<{ name: string; description?: string; region?: string }>();
  const pendingIds = new Set((pending.data ?? []).map((m) => m.appId));
  const active = (projects.data ?? []).filter((p) => !pendingIds.has(p.id));

  const submit = async (values: { name: string; description?: string; region?: string }) => {
    try {
      const created = await create.mutateAsync({
        name: values.name.trim(),
        ...(values.description ? { description: values.description } : {}),
        ...(values.region ? { region: values.region } : {}),
      });
      setCreating(false);
      form.resetFields();
      void message.success(t('projects.created'));
      void navigate(`/p/${created.appId}/home`);
    } catch (err) {
      form.setFields([{ name: 'name', errors: [errorText(err)] }]);
    }
  };

  return (
    <>
      <PageHeader
        title={t('projects.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('projects.create')}
          </Button>
        }
      />
      {(pending.data ?? []).length > 0 && (
        <Card title={t('projects.pending.title')} style={{ marginBottom: 16 }}>
          <List
            dataSource={pending.data}
            renderItem={(m) => (
              <List.Item
                actions={[
                  <Button
                    key="accept"
                    type="primary"
                    loading={answer.isPending}
                    onClick={() =>
                      void answer
                        .mutateAsync({ appId: m.appId, answer: 'accept' })
                        .then(() => message.success(t('projects.pending.accepted', { project: m.app.name })))
                    }
                  >
                    {t('projects.pending.accept')}
                  </Button>,
                  <Button key="decline" onClick={() => void answer.mutateAsync({ appId: m.appId, answer: 'leave' })}>
                    {t('projects.pending.decline')}
                  </Button>,
                ]}
              >
                <Typography.Text>{t('projects.pending.text', { project: m.app.name })}</Typography.Text>
              </List.Item>
            )}
          />
        </Card>
      )}
      {projects.isLoading ? (
        <Skeleton active />
      ) : active.length === 0 ? (
        <Empty description={t('projects.empty')} />
      ) : (
        <List
          grid={{ gutter: 16, xs: 1, sm: 2, lg: 3 }}
          dataSource={active}
          renderItem={(p) => (
            <List.Item>
              <Card
                title={
                  <Typography.Title level={2} style={{ fontSize: 16, margin: 0 }}>
                    <Link to={`/p/${p.id}/home`}>{p.name}</Link>
                  </Typography.Title>
                }
              >
                <Flex vertical gap={8}>
                  <Typography.Paragraph type="secondary" ellipsis={{ rows: 2 }} style={{ margin: 0, minHeight: 22 }}>
                    {p.description || t('common.none')}
                  </Typography.Paragraph>
                  <Link to={`/p/${p.id}/home`}>{t('projects.open')}</Link>
                </Flex>
              </Card>
            </List.Item>
          )}
        />
      )}
      <Modal
        title={t('projects.createTitle')}
        open={creating}
        onCancel={() => setCreating(false)}
        onOk={() => form.submit()}
        okText={t('common.actions.save')}
        cancelText={t('common.actions.cancel')}
        confirmLoading={create.isPending}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} requiredMark={false}>
          <Form.Item
            name="name"
            label={t('projects.name')}
            rules={[{ required: true, whitespace: true, message: t('projects.nameRequired') }]}
          >
            <Input />
          </Form.Item>
          <Form.Item name="description" label={t('projects.description')}>
            <Input.TextArea rows={3} />
          </Form.Item>
          {/* Proposed from the browser's language and region; the server reads phone numbers against it. */}
          <Form.Item
            name="region"
            label={t('projects.region')}
            extra={t('projects.regionHelp')}
            initialValue={browserRegion() ?? undefined}
          >
            <RegionSelect />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
