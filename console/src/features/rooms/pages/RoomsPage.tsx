import { ArrowLeftOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Input, Modal, Skeleton, Table, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { type RoomSummary, roomQueries, useSaveRoom } from '../api.ts';
import { type StoredItem, fromStored, rowsOf } from '../model.ts';

/** Documents in a stored tree, however deep. */
const documents = (items: unknown[]) => rowsOf(fromStored(items as StoredItem[])).filter((r) => r.item.type === 'file').length;

function NewRoom({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('rooms');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const save = useSaveRoom(appId);
  const [name, setName] = useState('');
  const create = () =>
    save.mutate(
      { id: undefined, name: name.trim(), items: [] },
      { onSuccess: (room) => void navigate(`/p/${appId}/rooms/${room.id}`), onError: (err) => void message.error(errorText(err)) },
    );
  return (
    <Modal
      title={t('rooms.create.title')}
      open={open}
      okText={t('rooms.create.create')}
      okButtonProps={{ disabled: name.trim() === '', loading: save.isPending }}
      onOk={create}
      onCancel={onClose}
      destroyOnHidden
    >
      <label htmlFor="new-room-name">{t('rooms.create.name')}</label>
      <Input
        id="new-room-name"
        style={{ marginTop: 4 }}
        maxLength={255}
        placeholder={t('rooms.create.nameHint')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        onPressEnter={() => name.trim() !== '' && create()}
      />
    </Modal>
  );
}

function Rooms() {
  const { appId = '' } = useParams();
  const { t } = useLazyTexts('rooms');
  const list = useQuery(roomQueries.list(appId));
  const [creating, setCreating] = useState(false);
  return (
    <>
      <Link to={`/p/${appId}/links`}>
        <ArrowLeftOutlined /> {t('rooms.page.toLinks')}
      </Link>
      <PageHeader
        title={t('rooms.page.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('rooms.page.new')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('rooms.page.intro')}</Typography.Paragraph>
      <Card size="small">
        {list.isLoading ? (
          <Skeleton active />
        ) : (list.data ?? []).length === 0 ? (
          <Empty description={t('rooms.page.empty')}>
            <Button onClick={() => setCreating(true)}>{t('rooms.page.first')}</Button>
          </Empty>
        ) : (
          <Table<RoomSummary>
            size="small"
            rowKey="id"
            pagination={false}
            dataSource={list.data}
            columns={[
              { key: 'name', title: t('rooms.page.name'), render: (_, r) => <Link to={`/p/${appId}/rooms/${r.id}`}>{r.name}</Link> },
              { key: 'documents', title: t('rooms.page.documents'), render: (_, r) => documents(r.items) },
              { key: 'updated', title: t('rooms.page.updated'), responsive: ['sm'], render: (_, r) => <DateTime value={r.updatedAt} /> },
            ]}
          />
        )}
      </Card>
      <NewRoom open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

/** The project's data rooms (Sales: their own) and a new one. */
export function RoomsPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Rooms />
    </Suspense>
  );
}
