import { Checkbox, Flex, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { Task } from '../api.ts';
import { isKind } from '../model.ts';

/**
 * One task: a checkbox named by its title (ticked: done; unticked again: open), its kind, when it is
 * due (overdue marked), who it is for, and, on the Tasks page, its customer's page.
 */
export function TaskItem({
  task,
  nameOf,
  customerLink,
  busy,
  onDone,
}: {
  task: Task;
  nameOf: (id: number) => string;
  /** The customer's page, when the task is shown away from it. */
  customerLink?: string;
  busy: boolean;
  onDone: (done: boolean) => void;
}) {
  const { t } = useLazyTexts('tasks');
  const done = task.status === 'done';
  return (
    <Flex vertical gap={2} style={{ minWidth: 0, width: '100%' }} data-task={task.id}>
      {/* While it is being changed it shows as asked (ticked or not), and waits. */}
      <Checkbox checked={busy !== done} disabled={busy} onChange={(e) => onDone(e.target.checked)}>
        <Typography.Text strong delete={done} style={{ overflowWrap: 'anywhere' }}>
          {task.title}
        </Typography.Text>
      </Checkbox>
      <Flex wrap gap={6} align="center" style={{ paddingInlineStart: 24 }}>
        {customerLink && <Link to={customerLink}>{task.customerName || t('tasks.unnamedCustomer')}</Link>}
        <Tag style={{ marginInlineEnd: 0 }}>{isKind(task.kind) ? t(`tasks.kinds.${task.kind}`) : task.kind}</Tag>
        {task.overdue && (
          <Tag color="#c62828" style={{ marginInlineEnd: 0 }}>
            {t('tasks.overdue')}
          </Tag>
        )}
        <Typography.Text type="secondary">
          {t('tasks.dueAt')} <DateTime value={task.dueAt} />
        </Typography.Text>
        <Typography.Text type="secondary">{t('tasks.assignedTo', { name: nameOf(task.assigneeId) })}</Typography.Text>
      </Flex>
      {task.notes && (
        <Typography.Text type="secondary" style={{ paddingInlineStart: 24, whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
          {task.notes}
        </Typography.Text>
      )}
      {done && task.completedAt && (
        <Typography.Text type="secondary" style={{ paddingInlineStart: 24, fontSize: 12 }}>
          {t('tasks.completedBy', { name: nameOf(task.completedBy ?? task.assigneeId) })} <DateTime value={task.completedAt} />
        </Typography.Text>
      )}
    </Flex>
  );
}
