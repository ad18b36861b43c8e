import { Flex } from 'antd';
import { DateTime } from '../ui/DateTime.tsx';
import { Muted } from '../ui/Muted.tsx';
import type { ScoreReason } from './reasons.ts';
import { useScoreWords } from './useScoreWords.ts';

/**
 * A score's reasons, largest first: each in words, when it last happened (relative, the server's
 * time in its tooltip) and the points it counts for now.
 */
export function ScoreReasons({ reasons, max }: { reasons: readonly ScoreReason[]; max?: number }) {
  const words = useScoreWords();
  const shown = max === undefined ? reasons : reasons.slice(0, max);
  return (
    <ul style={{ margin: 0, paddingInlineStart: 18 }} data-score-reasons>
      {shown.map((r) => (
        <li key={`${r.kind}-${r.firstAt}-${r.title ?? ''}`}>
          <Flex wrap gap={6} align="baseline">
            <span style={{ overflowWrap: 'anywhere' }}>{words.reason(r)}</span>
            <Muted style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
              <DateTime value={r.lastAt} relative /> · +{words.score(r.points)}
            </Muted>
          </Flex>
        </li>
      ))}
    </ul>
  );
}
