import type { CSSProperties } from 'react';
import { Muted } from '../ui/Muted.tsx';
import type { ScoreReason } from './reasons.ts';
import { useScoreWords } from './useScoreWords.ts';

const ONE_LINE: CSSProperties = { display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' };

/**
 * A customer's score in a list: the number, and its largest reason in words on a line under it (cut
 * short when long; the whole of it, and every other reason, on the customer's page). Nothing for no score.
 */
export function TopReason({
  score,
  reasons,
  label,
}: {
  score: number | undefined;
  reasons: readonly ScoreReason[] | undefined;
  /** The number's words ("Score 23.5") where no column header says what it is. */
  label?: (score: string) => string;
}) {
  const words = useScoreWords();
  if (!score) return null;
  const top = reasons?.[0];
  const reason = top ? words.reason(top) : undefined;
  return (
    <span style={{ display: 'block', minWidth: 0 }} data-score={score}>
      <strong>{label ? label(words.score(score)) : words.score(score)}</strong>
      {reason && (
        <Muted style={{ ...ONE_LINE, fontSize: 12 }} title={reason}>
          {reason}
        </Muted>
      )}
    </span>
  );
}
