import { PhoneOutlined } from '@ant-design/icons';
import { useInfiniteQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, List, Popconfirm, Skeleton, Tag, Typography } from 'antd';
import { useState } from 'react';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { type Note, noteQueries, useSaveNote } from '../api.ts';
import type { Person } from '../model.ts';
import { NoteEditor } from './NoteEditor.tsx';
import { NoteText } from './NoteText.tsx';

interface Props {
  appId: string;
  customerId: string;
  people: readonly Person[];
  myId: number | undefined;
  manages: boolean;
  nameOf: (id: number) => string;
  onLogCall: () => void;
}

/** One note: who wrote it and when, its text; its author may edit it, its author or a manager delete it. */
function NoteItem({
  note,
  editing,
  onEdit,
  ...p
}: Omit<Props, 'onLogCall'> & { note: Note; editing: boolean; onEdit: (on: boolean) => void }) {
  const { t } = useLazyTexts('tasks');
  const { message } = App.useApp();
  const save = useSaveNote(p.appId, p.customerId);
  const mine = note.authorId === p.myId;
  const edited = note.updatedAt !== note.createdAt;
  return (
    <List.Item style={{ display: 'block', paddingInline: 0 }} data-note={note.id}>
      <Flex justify="space-between" align="baseline" gap={8} wrap>
        <Typography.Text strong>{p.nameOf(note.authorId)}</Typography.Text>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          <DateTime value={note.createdAt} />
          {edited ? ` · ${t('tasks.notes.edited')}` : ''}
        </Typography.Text>
      </Flex>
      {note.callId && <Tag icon={<PhoneOutlined />}>{t('tasks.notes.withCall')}</Tag>}
      {editing ? (
        <NoteEditor
          people={p.people}
          initial={note.content}
          saveLabel={t('tasks.notes.saveEdit')}
          autoFocus
          onCancel={() => onEdit(false)}
          onSave={async (content) => {
            await save.mutateAsync({ id: note.id, content });
            onEdit(false);
          }}
        />
      ) : (
        <NoteText content={note.content} mentions={note.mentions} />
      )}
      {!editing && (mine || p.manages) && (
        <Flex gap={4} justify="flex-end">
          {mine && (
            <Button size="small" type="link" onClick={() => onEdit(true)}>
              {t('tasks.notes.edit')}
            </Button>
          )}
          <Popconfirm
            title={t('tasks.notes.deleteConfirm')}
            okText={t('tasks.notes.delete')}
            okButtonProps={{ danger: true }}
            cancelText={t('common.actions.cancel')}
            onConfirm={() =>
              void save.mutateAsync({ id: note.id, content: null }).then(
                () => message.success(t('tasks.notes.deleted')),
                (err: unknown) => message.error(errorText(err)),
              )
            }
          >
            <Button size="small" type="link" danger>
              {t('tasks.notes.delete')}
            </Button>
          </Popconfirm>
        </Flex>
      )}
    </List.Item>
  );
}

/** The customer's notes: the box to write one (with @-mentions), then the notes, newest first. */
export function NotesPanel(props: Props) {
  const { appId, customerId, people, onLogCall } = props;
  const { t } = useLazyTexts('tasks');
  const notes = useInfiniteQuery(noteQueries.list(appId, customerId));
  const save = useSaveNote(appId, customerId);
  const [editing, setEditing] = useState<string>();
  const all = notes.data?.pages.flat() ?? [];
  return (
    <Card
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('tasks.notes.title')}</h2>}
      extra={
        <Button size="small" icon={<PhoneOutlined />} onClick={onLogCall}>
          {t('tasks.calls.log')}
        </Button>
      }
    >
      <NoteEditor people={people} saveLabel={t('tasks.notes.save')} onSave={(content) => save.mutateAsync({ content })} />
      {notes.isLoading ? (
        <Skeleton active paragraph={{ rows: 3 }} />
      ) : all.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tasks.notes.empty')} />
      ) : (
        <List
          dataSource={all}
          rowKey="id"
          renderItem={(note) => (
            <NoteItem {...props} note={note} editing={editing === note.id} onEdit={(on) => setEditing(on ? note.id : undefined)} />
          )}
        />
      )}
      {notes.hasNextPage && (
        <Flex justify="center">
          <Button loading={notes.isFetchingNextPage} onClick={() => void notes.fetchNextPage()}>
            {t('tasks.notes.more')}
          </Button>
        </Flex>
      )}
    </Card>
  );
}
