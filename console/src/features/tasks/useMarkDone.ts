import { App } from 'antd';
import { useState } from 'react';
import { useLazyTexts } from '../../shared/i18n/lazyTexts.ts';
import { type Task, useSetTaskStatus } from './api.ts';

/**
 * Ticking tasks off (and on again) wherever they are listed: the request, which task is being
 * changed (its checkbox waits), and a word once it is done. A refusal is shown by its code.
 */
export function useMarkDone(appId: string) {
  const { t } = useLazyTexts('tasks');
  const { message } = App.useApp();
  const setStatus = useSetTaskStatus(appId);
  const [changing, setChanging] = useState<string>();
  const mark = (task: Task, done: boolean) => {
    setChanging(task.id);
    setStatus.mutate(
      { id: task.id, status: done ? 'done' : 'open' },
      {
        onSuccess: () => void message.success(t(done ? 'tasks.markedDone' : 'tasks.markedOpen', { title: task.title })),
        onSettled: () => setChanging(undefined),
      },
    );
  };
  return { mark, changing };
}
