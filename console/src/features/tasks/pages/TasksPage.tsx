import { Empty, List, Result, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { Link } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { Pager } from '../../../shared/ui/Pager.tsx';
import { TaskFilters } from '../components/TaskFilters.tsx';
import { TaskItem } from '../components/TaskItem.tsx';
import { useTaskList } from '../useTaskList.ts';

function TaskList() {
  const { t } = useLazyTexts('tasks');
  const { appId, filter, change, people, tasks, rows, hasMore, loading, mark, changing } = useTaskList();
  const empty = (
    <Empty
      description={
        <>
          <Typography.Paragraph strong style={{ marginBottom: 4 }}>
            {t(`tasks.page.empty.${filter.due}`)}
          </Typography.Paragraph>
          <Typography.Paragraph type="secondary">{t('tasks.page.empty.how')}</Typography.Paragraph>
        </>
      }
    >
      <Link to={`/p/${appId}/customers`}>{t('tasks.page.toCustomers')}</Link>
    </Empty>
  );
  return (
    <>
      <PageHeader title={t('tasks.page.title')} />
      <Typography.Paragraph type="secondary">{t(people.manages ? 'tasks.page.introManager' : 'tasks.page.intro')}</Typography.Paragraph>
      <TaskFilters filter={filter} onChange={change} members={people.members} manages={people.manages} myId={people.myId} />
      {tasks.isError ? (
        <Result status="warning" title={t('tasks.page.loadFailed')} subTitle={errorText(tasks.error)} />
      ) : (
        <List
          loading={loading || (tasks.isFetching && tasks.isPlaceholderData)}
          dataSource={rows}
          rowKey="id"
          locale={{ emptyText: loading ? ' ' : empty }}
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
      )}
      <Pager page={filter.page} hasMore={hasMore} onPage={(page) => change({ page })} />
    </>
  );
}

/** The member's tasks across the project's customers, by due time; its texts load with it. */
export function TasksPage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
      <TaskList />
    </Suspense>
  );
}
