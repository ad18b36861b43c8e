import { Flex, Skeleton, Tag, Typography } from 'antd';
import { Suspense } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { Note, Task } from '../api.ts';
import { isKind } from '../model.ts';
import { usePeople } from '../usePeople.ts';
import { NoteText } from './NoteText.tsx';

interface Props {
  appId: string;
  /** A `member_note` record's note, as it is now. */
  note?: Note | null | undefined;
  /** A `member_task` record's task, as it is now. */
  task?: Task | null | undefined;
}

function Details({ appId, note, task }: Props) {
  const { t } = useLazyTexts('tasks');
  const { nameOf } = usePeople(appId);
  if (note)
    return (
      <Flex vertical gap={2} style={{ maxWidth: 560 }}>
        <Typography.Text type="secondary">{t('tasks.timeline.noteBy', { name: nameOf(note.authorId) })}</Typography.Text>
        <NoteText content={note.content} mentions={note.mentions} />
      </Flex>
    );
  if (task)
    return (
      <Flex vertical gap={2} style={{ maxWidth: 560 }}>
        <Typography.Text style={{ overflowWrap: 'anywhere' }}>{t('tasks.timeline.task', { title: task.title })}</Typography.Text>
        <Flex wrap gap={6} align="center">
          <Tag style={{ marginInlineEnd: 0 }}>{isKind(task.kind) ? t(`tasks.kinds.${task.kind}`) : task.kind}</Tag>
          {task.status === 'done' ? (
            <Tag color="#2e7d32" style={{ marginInlineEnd: 0 }}>
              {t('tasks.timeline.done')}
            </Tag>
          ) : task.overdue ? (
            <Tag color="#c62828" style={{ marginInlineEnd: 0 }}>
              {t('tasks.overdue')}
            </Tag>
          ) : null}
          <Typography.Text type="secondary">
            {t('tasks.dueAt')} <DateTime value={task.dueAt} />
          </Typography.Text>
          <Typography.Text type="secondary">
            {task.creatorId === task.assigneeId
              ? t('tasks.assignedTo', { name: nameOf(task.assigneeId) })
              : t('tasks.timeline.setBy', { by: nameOf(task.creatorId), for: nameOf(task.assigneeId) })}
          </Typography.Text>
        </Flex>
      </Flex>
    );
  return null;
}

/** What the timeline shows under a team record's title: the note as it reads now, or the task and whether it is done. */
export function TeamRecord(props: Props) {
  return (
    <Suspense fallback={<Skeleton active title={false} paragraph={{ rows: 1 }} />}>
      <Details {...props} />
    </Suspense>
  );
}
