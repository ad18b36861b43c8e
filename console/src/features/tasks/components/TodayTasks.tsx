import { useQuery } from '@tanstack/react-query';
import { Card, Empty, List, Typography } from 'antd';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type Task, taskQueries } from '../api.ts';
import { browserTimeZone } from '../model.ts';
import { useMarkDone } from '../useMarkDone.ts';
import { usePeople } from '../usePeople.ts';
import { TaskItem } from './TaskItem.tsx';

const SHOWN = 20;

/**
 * The caller's open tasks that want doing today: the overdue ones first, then those due later today
 * (in the browser's zone), each ticked off where it stands and linking to its customer; the Tasks
 * page has the rest.
 */
export function TodayTasks({ appId, title }: { appId: string; title: string }) {
  const { t } = useLazyTexts('tasks');
  const people = usePeople(appId);
  const timeZone = useMemo(browserTimeZone, []);
  const me = people.myId;
  const zone = timeZone ? { time_zone: timeZone } : {};
  const overdue = useQuery({
    ...taskQueries.list(appId, { assignee_id: me, due: 'overdue', ...zone }, 1, SHOWN),
    enabled: me !== undefined,
  });
  const today = useQuery({
    ...taskQueries.list(appId, { assignee_id: me, due: 'today', status: 'open', ...zone }, 1, SHOWN),
    enabled: me !== undefined,
  });
  const { mark, changing } = useMarkDone(appId);
  // Today's list holds those overdue since this morning too: each task once, the overdue first.
  const rows: Task[] = [...(overdue.data?.rows ?? [])];
  for (const task of today.data?.rows ?? []) if (!rows.some((r) => r.id === task.id)) rows.push(task);
  const more = Boolean(overdue.data?.hasMore || today.data?.hasMore);
  const loading = !people.ready || overdue.isLoading || today.isLoading;
  return (
    <Card
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{title}</h2>}
      extra={<Link to={`/p/${appId}/tasks`}>{t('tasks.home.all')}</Link>}
      data-testid="today-tasks"
    >
      <List
        loading={loading}
        dataSource={rows}
        rowKey="id"
        locale={{
          emptyText: loading ? (
            ' '
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={<Typography.Text>{t('tasks.home.empty')}</Typography.Text>} />
          ),
        }}
        renderItem={(task) => (
          <List.Item>
            <TaskItem
              task={task}
              nameOf={people.nameOf}
              customerLink={`/p/${appId}/customers/${task.customerId}`}
              busy={changing === task.id}
              onDone={(done) => mark(task, done)}
            />
          </List.Item>
        )}
      />
      {more && (
        <Typography.Paragraph style={{ marginTop: 8, marginBottom: 0 }}>
          <Link to={`/p/${appId}/tasks?due=today`}>{t('tasks.home.more')}</Link>
        </Typography.Paragraph>
      )}
    </Card>
  );
}
