import { Flex, Segmented, Select } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DUES, type Person, STATUSES, type TaskFilter } from '../model.ts';

/** The Tasks page's filters: when due, open or done, and (for the Master and Admins) whose. */
export function TaskFilters({
  filter,
  onChange,
  members,
  manages,
  myId,
}: {
  filter: TaskFilter;
  onChange: (patch: Partial<TaskFilter>) => void;
  members: readonly Person[];
  manages: boolean;
  myId: number | undefined;
}) {
  const { t } = useLazyTexts('tasks');
  return (
    <Flex wrap gap={12} align="center" style={{ marginBottom: 16 }}>
      <Segmented
        aria-label={t('tasks.filters.due')}
        value={filter.due}
        onChange={(due) => onChange({ due })}
        options={DUES.map((d) => ({ value: d, label: t(`tasks.filters.dues.${d}`) }))}
      />
      <Segmented
        aria-label={t('tasks.filters.status')}
        value={filter.due === 'overdue' ? 'open' : filter.status}
        disabled={filter.due === 'overdue'}
        onChange={(status) => onChange({ status })}
        options={STATUSES.map((s) => ({ value: s, label: t(`tasks.filters.statuses.${s}`) }))}
      />
      {manages && (
        <Select
          aria-label={t('tasks.filters.assignee')}
          style={{ minWidth: 200 }}
          value={filter.assignee}
          onChange={(assignee: string) => onChange({ assignee })}
          options={[
            { value: 'me', label: t('tasks.filters.mine') },
            { value: 'all', label: t('tasks.filters.everyone') },
            ...members.filter((m) => m.id !== myId).map((m) => ({ value: String(m.id), label: m.name })),
          ]}
        />
      )}
    </Flex>
  );
}
