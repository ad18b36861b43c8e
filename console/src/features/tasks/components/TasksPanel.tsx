import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, List, Skeleton, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { CUSTOMER_TASKS, taskQueries } from '../api.ts';
import { useMarkDone } from '../useMarkDone.ts';
import { TaskItem } from './TaskItem.tsx';

/** The customer's open tasks, soonest first, each ticked off here; "Add task" opens the form. */
export function TasksPanel({
  appId,
  customerId,
  nameOf,
  onAdd,
}: {
  appId: string;
  customerId: string;
  nameOf: (id: number) => string;
  onAdd: () => void;
}) {
  const { t } = useLazyTexts('tasks');
  const tasks = useQuery(taskQueries.list(appId, { customer_id: customerId, status: 'open' }, 1, CUSTOMER_TASKS));
  const { mark, changing } = useMarkDone(appId);
  const rows = tasks.data?.rows ?? [];
  return (
    <Card
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('tasks.panel.title')}</h2>}
      extra={
        <Button size="small" icon={<PlusOutlined />} onClick={onAdd}>
          {t('tasks.panel.add')}
        </Button>
      }
    >
      {tasks.isLoading ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : rows.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tasks.panel.empty')} />
      ) : (
        <List
          dataSource={rows}
          rowKey="id"
          renderItem={(task) => (
            <List.Item style={{ paddingInline: 0 }}>
              <TaskItem task={task} nameOf={nameOf} busy={changing === task.id} onDone={(done) => mark(task, done)} />
            </List.Item>
          )}
        />
      )}
      {tasks.data?.hasMore && (
        <Typography.Paragraph style={{ margin: 0 }}>
          <Link to={`/p/${appId}/tasks?assignee=all`}>{t('tasks.panel.more')}</Link>
        </Typography.Paragraph>
      )}
    </Card>
  );
}
