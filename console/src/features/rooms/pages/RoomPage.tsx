import { ArrowLeftOutlined, DeleteOutlined } from '@ant-design/icons';
import { Button, Card, Col, Flex, Input, Popconfirm, Result, Row, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { FilePicker } from '../components/FilePicker.tsx';
import { TreeEditor } from '../components/TreeEditor.tsx';
import { useRoomEditor } from '../useRoomEditor.ts';

function Room() {
  const e = useRoomEditor();
  const { t } = useLazyTexts('rooms');
  const back = (
    <Link to={`/p/${e.appId}/rooms`}>
      <ArrowLeftOutlined /> {t('rooms.page.back')}
    </Link>
  );
  if (e.stored.isError) return <Result status="404" title={t('rooms.page.notFound')} extra={back} />;
  if (!e.stored.data) return <Skeleton active paragraph={{ rows: 8 }} />;
  return (
    <>
      {back}
      <PageHeader
        title={e.stored.data.name}
        extra={
          <Popconfirm
            title={t('rooms.editor.deleteConfirm')}
            okText={t('rooms.editor.delete')}
            okButtonProps={{ danger: true }}
            onConfirm={e.deleteRoom}
          >
            <Button danger icon={<DeleteOutlined />} loading={e.deleting}>
              {t('rooms.editor.delete')}
            </Button>
          </Popconfirm>
        }
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={15}>
          <Flex vertical gap={16}>
            <Card size="small">
              <label htmlFor="room-name">{t('rooms.editor.name')}</label>
              <Input
                id="room-name"
                style={{ marginTop: 4 }}
                maxLength={255}
                status={e.has('name') ? 'error' : undefined}
                value={e.name}
                onChange={(ev) => e.setName(ev.target.value)}
              />
              {e.has('name') && <Typography.Text type="danger">{t('rooms.editor.nameRequired')}</Typography.Text>}
            </Card>
            <Card
              size="small"
              title={t('rooms.editor.contents')}
              extra={<Typography.Text type="secondary">{t('rooms.editor.count', { count: e.count })}</Typography.Text>}
            >
              <TreeEditor editor={e} />
              {e.has('folderName') && <Typography.Text type="danger">{t('rooms.editor.folderRequired')}</Typography.Text>}
            </Card>
            <Flex justify="flex-end">
              <Button type="primary" onClick={e.submit} loading={e.saving}>
                {t('rooms.editor.save')}
              </Button>
            </Flex>
          </Flex>
        </Col>
        <Col xs={24} lg={9}>
          <Card size="small" title={t('rooms.share.title')}>
            <Typography.Paragraph type="secondary">{t('rooms.share.hint')}</Typography.Paragraph>
            {e.sharedUrl ? (
              <Typography.Paragraph copyable={{ text: e.sharedUrl }} data-share-url>
                {e.sharedUrl}
              </Typography.Paragraph>
            ) : (
              <Button onClick={e.share} loading={e.sharing} disabled={e.dirty}>
                {t('rooms.share.make')}
              </Button>
            )}
          </Card>
        </Col>
      </Row>
      <FilePicker editor={e} />
    </>
  );
}

/** A data room's editor: its name, its folders and documents (files of the project), and a link that shares it. */
export function RoomPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Room />
    </Suspense>
  );
}
