import { Tag } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';

// Solid colours with white text, or antd's blue and plain: their text keeps its contrast (axe).
const COLORS: Record<string, string> = { active: '#2e7d32', paused: '#ad4e00', finished: 'blue', exited: 'default' };

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
