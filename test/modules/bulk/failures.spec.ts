/** A bulk job's failure summary: counted by code, the first ones kept with their customer. */
import { describe, expect, it } from 'vitest';
import { FIRST_FAILURES_KEPT, addFailures, emptySummary } from '../../../src/modules/bulk/mapper.ts';

const failure = (i: number, code = 'customer_not_found') => ({ customerId: `c${i}`, code, reason: code });

describe("a bulk job's failure summary", () => {
  it('counts every failure by code and keeps the first ones with their customer, across batches', () => {
    let summary = emptySummary();
    summary = addFailures(
      summary,
      Array.from({ length: 30 }, (_, i) => failure(i)),
    );
    summary = addFailures(summary, [failure(30, 'group_owner_mismatch'), ...Array.from({ length: 40 }, (_, i) => failure(31 + i))]);
    expect(summary.byCode).toEqual({ customer_not_found: 70, group_owner_mismatch: 1 });
    expect(summary.first).toHaveLength(FIRST_FAILURES_KEPT);
    expect(summary.first.map((f) => f.customerId)).toEqual(Array.from({ length: FIRST_FAILURES_KEPT }, (_, i) => `c${i}`));
  });

  it('leaves the summary it was given as it was', () => {
    const before = addFailures(emptySummary(), [failure(1)]);
    addFailures(before, [failure(2)]);
    expect(before).toEqual({ byCode: { customer_not_found: 1 }, first: [failure(1)] });
  });
});
