/*
 * A customer's score state as the customer_scores table stores it, and back (docs/scoring.md): what the
 * keeper reads before applying records and writes after.
 */
import type { Insertable } from 'kysely';
import type { CustomerScoresTable } from '../../db/index.ts';
import { type LastSignal, type Marks, type Reason, type ScoreState, emptyState } from './state.ts';

/** A stored state as the rules work on it. */
export function stateOf(row: CustomerScoresTable | undefined): ScoreState {
  if (row === undefined) return emptyState();
  const json = <T>(text: string | null, otherwise: T): T => {
    try {
      return text === null ? otherwise : (JSON.parse(text) as T);
    } catch {
      return otherwise;
    }
  };
  return {
    value: Number(row.value),
    refAt: Number(row.ref_at),
    rise: Number(row.rise),
    riseAt: Number(row.rise_at),
    reasons: json<Reason[]>(row.reasons, []),
    last: json<LastSignal | null>(row.last_signal, null),
    marks: json<Marks>(row.marks, { lastViewAt: 0, readings: [] }),
  };
}

/** The state a recompute starts a customer from: none, but for when it was last announced as a hot lead. */
export function freshState(row: CustomerScoresTable | undefined): ScoreState {
  const state = emptyState();
  const hotAt = stateOf(row).marks.hotAt;
  if (hotAt !== undefined) state.marks.hotAt = hotAt;
  return state;
}

export function rowOf(appId: string, customerId: string, s: ScoreState, now: number): Insertable<CustomerScoresTable> {
  return {
    app_id: appId,
    customer_id: customerId,
    value: s.value,
    ref_at: s.refAt,
    rise: s.rise,
    rise_at: s.riseAt,
    reasons: JSON.stringify(s.reasons),
    last_signal: s.last === null ? null : JSON.stringify(s.last),
    marks: JSON.stringify(s.marks),
    updated_at: now,
  };
}

/** Whether a state differs from the stored one (records that earned nothing and marked nothing leave it alone: no write). */
export function changed(before: CustomerScoresTable | undefined, after: Insertable<CustomerScoresTable>): boolean {
  if (before === undefined) return Number(after.value) > 0 || after.marks !== JSON.stringify(emptyState().marks);
  return (
    Number(before.value) !== after.value ||
    Number(before.ref_at) !== after.ref_at ||
    before.reasons !== after.reasons ||
    before.marks !== after.marks ||
    before.last_signal !== after.last_signal
  );
}
