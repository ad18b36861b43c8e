import { Tag } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';

const COLORS: Record<string, string> = { active: 'green', paused: 'orange', finished: 'blue', exited: 'default' };

/** An enrolment's state in words; an exit with its reason. */
export function StateTag({ state, reason }: { state: string; reason?: string | null | undefined }) {
  const { t } = useLazyTexts('sequences');
  const label = t(`sequences.states.${state}`, { defaultValue: state });
  const why = state === 'exited' && reason ? `: ${t(`sequences.exitReasons.${reason}`, { defaultValue: reason })}` : '';
  return (
    <Tag color={COLORS[state] ?? 'default'} style={{ marginInlineEnd: 0 }}>
      {label}
      {why}
    </Tag>
  );
}
