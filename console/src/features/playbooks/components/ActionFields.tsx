import { useQuery } from '@tanstack/react-query';
import { Checkbox, Flex, Input, InputNumber, Select } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { customerQueries } from '../../customers/index.ts';
import { usePeople } from '../../tasks/index.ts';
import { playbookQueries } from '../api.ts';
import { type Action, TASK_KINDS } from '../model.ts';

const FULL = { flex: '1 1 200px' } as const;

/** The fields of one action, by its type. */
export function ActionFields({
  appId,
  action: a,
  onChange,
  bad,
}: {
  appId: string;
  action: Action;
  onChange: (a: Action) => void;
  bad: boolean;
}) {
  const { t } = useLazyTexts('playbooks');
  const { members } = usePeople(appId);
  const needsSequences = a.type === 'enroll' || a.type === 'exit_sequence';
  const sequences = useQuery({ ...playbookQueries.sequences(appId), enabled: needsSequences });
  const groups = useQuery({ ...customerQueries.groups(appId), enabled: a.type === 'move_to_group' });
  const metadata = useQuery({ ...customerQueries.metadata(appId), enabled: a.type === 'set_field' });
  const status = bad ? ('error' as const) : undefined;
  const sequenceOptions = (sequences.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  switch (a.type) {
    case 'create_task':
      return (
        <Flex gap={8} wrap>
          <Input
            aria-label={t('playbooks.actions.taskTitle')}
            placeholder={t('playbooks.actions.taskTitle')}
            style={{ flex: '2 1 240px' }}
            status={status}
            value={a.title}
            onChange={(ev) => onChange({ ...a, title: ev.target.value })}
          />
          <Select
            aria-label={t('playbooks.actions.taskKind')}
            style={{ flex: '1 1 120px' }}
            value={a.kind}
            onChange={(kind) => onChange({ ...a, kind })}
            options={TASK_KINDS.map((k) => ({ value: k, label: t(`playbooks.taskKinds.${k}`) }))}
          />
          <InputNumber
            aria-label={t('playbooks.actions.dueIn')}
            min={0}
            max={2160}
            precision={0}
            addonBefore={t('playbooks.actions.dueIn')}
            addonAfter={t('playbooks.actions.hours')}
            style={{ flex: '1 1 180px' }}
            value={a.dueInHours}
            onChange={(v) => onChange({ ...a, dueInHours: v ?? 0 })}
          />
        </Flex>
      );
    case 'notify':
      return (
        <Flex gap={8} wrap align="center">
          <Select<'owner' | number[]>
            aria-label={t('playbooks.actions.notifyWho')}
            style={FULL}
            status={status}
            mode={a.to === 'owner' ? undefined : 'multiple'}
            value={a.to === 'owner' ? 'owner' : a.to}
            onChange={(v) => onChange({ ...a, to: v === 'owner' || (Array.isArray(v) && v.includes('owner' as never)) ? 'owner' : v })}
            options={
              [{ value: 'owner', label: t('playbooks.actions.owner') }, ...members.map((m) => ({ value: m.id, label: m.name }))] as never
            }
          />
          <Checkbox.Group
            aria-label={t('playbooks.actions.channels')}
            value={a.channels}
            onChange={(channels) => onChange({ ...a, channels: channels as ('inbox' | 'chat')[] })}
            options={[
              { value: 'inbox', label: t('playbooks.actions.inbox') },
              { value: 'chat', label: t('playbooks.actions.chat') },
            ]}
          />
        </Flex>
      );
    case 'enroll':
      return (
        <Select
          aria-label={t('playbooks.actions.sequence')}
          placeholder={t('playbooks.actions.sequence')}
          style={{ width: '100%' }}
          status={status}
          loading={sequences.isLoading}
          value={a.sequenceId || undefined}
          onChange={(sequenceId: string) => onChange({ ...a, sequenceId })}
          options={sequenceOptions}
        />
      );
    case 'exit_sequence':
      return (
        <Select
          aria-label={t('playbooks.actions.sequence')}
          style={{ width: '100%' }}
          loading={sequences.isLoading}
          value={a.sequenceId ?? ''}
          onChange={(v: string) => onChange({ ...a, sequenceId: v === '' ? null : v })}
          options={[{ value: '', label: t('playbooks.actions.everySequence') }, ...sequenceOptions]}
        />
      );
    case 'move_to_group':
      return (
        <Select
          aria-label={t('playbooks.actions.group')}
          placeholder={t('playbooks.actions.group')}
          style={{ width: '100%' }}
          status={status}
          value={a.groupId || undefined}
          onChange={(groupId: string) => onChange({ ...a, groupId })}
          options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
        />
      );
    case 'set_field':
      return (
        <Flex gap={8} wrap>
          <Select
            aria-label={t('playbooks.actions.field')}
            placeholder={t('playbooks.actions.field')}
            showSearch
            style={FULL}
            status={status}
            value={a.key || undefined}
            onChange={(key: string) => onChange({ ...a, key })}
            options={(metadata.data ?? []).map((m) => ({ value: m.name, label: m.title || m.name }))}
          />
          <Input
            aria-label={t('playbooks.actions.value')}
            placeholder={t('playbooks.actions.value')}
            style={FULL}
            value={a.value}
            onChange={(ev) => onChange({ ...a, value: ev.target.value })}
          />
        </Flex>
      );
    case 'webhook':
      return (
        <Input
          aria-label={t('playbooks.actions.url')}
          placeholder={t('playbooks.actions.urlHint')}
          status={status}
          value={a.url}
          onChange={(ev) => onChange({ ...a, url: ev.target.value })}
        />
      );
  }
}
