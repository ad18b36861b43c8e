import { App, Flex, Skeleton } from 'antd';
import { Suspense, useState } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { usePeople } from '../usePeople.ts';
import { LogCallModal } from './LogCallModal.tsx';
import { NotesPanel } from './NotesPanel.tsx';
import { TaskFormModal } from './TaskFormModal.tsx';
import { TasksPanel } from './TasksPanel.tsx';

interface Props {
  appId: string;
  customerId: string;
  /** The customer's owner (its `svcUserId`): with the Master and Admins, who may be mentioned or given its tasks. */
  ownerId: string | number | null | undefined;
}

function Panels({ appId, customerId, ownerId }: Props) {
  const { t } = useLazyTexts('tasks');
  const { message } = App.useApp();
  const owner = ownerId == null || ownerId === '' ? undefined : Number(ownerId);
  const { myId, manages, people, nameOf } = usePeople(appId, owner);
  const [adding, setAdding] = useState(false);
  const [logging, setLogging] = useState(false);
  return (
    <Flex vertical gap={16}>
      <TasksPanel appId={appId} customerId={customerId} nameOf={nameOf} onAdd={() => setAdding(true)} />
      <NotesPanel
        appId={appId}
        customerId={customerId}
        people={people}
        myId={myId}
        manages={manages}
        nameOf={nameOf}
        onLogCall={() => setLogging(true)}
      />
      <TaskFormModal
        appId={appId}
        customerId={customerId}
        people={people}
        myId={myId}
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={() => {
          setAdding(false);
          void message.success(t('tasks.form.added'));
        }}
      />
      <LogCallModal
        appId={appId}
        customerId={customerId}
        people={people}
        open={logging}
        onClose={() => setLogging(false)}
        onLogged={() => {
          setLogging(false);
          void message.success(t('tasks.calls.logged'));
        }}
      />
    </Flex>
  );
}

/**
 * What the team does about a customer, on its page: its open tasks (add, tick off), its notes
 * (write with @-mentions, edit, delete) and logging a call. Its texts load with it.
 */
export function CustomerWork(props: Props) {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 4 }} />}>
      <Panels {...props} />
    </Suspense>
  );
}
