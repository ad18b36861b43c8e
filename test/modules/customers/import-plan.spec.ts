/** How the import service sorts a batch's rows: new customers, updates of stored ones, duplicates folded or skipped. */
import { describe, expect, it } from 'vitest';
import {
  type ImportItem,
  combinedInput,
  duplicateKeys,
  importInput,
  matchKey,
  planImport,
} from '../../../src/modules/customers/import-plan.ts';
import type { CustomerRow } from '../../../src/modules/customers/mapper.ts';

const KEYS = duplicateKeys([], 'CN');
const stored = { id: 'c-1', phone: '13800000001', phone_key: '+8613800000001', email_lower: 'a@example.com' } as CustomerRow;
const storedByKey = new Map([
  [matchKey(KEYS[0]!, stored.phone_key), stored],
  [matchKey(KEYS[1]!, stored.email_lower), stored],
]);

const rows: ImportItem[] = [
  { row: 2, input: { name: 'Stored by phone', phone: '13800000001' } },
  { row: 3, input: { name: 'New', phone: '13800000002', company: '' } },
  { row: 4, input: { name: 'New again', email: 'b@example.com', phone: '13800000002', company: 'B Co' } },
  { row: 5, input: { name: 'Stored by e-mail', email: 'A@Example.com' } },
  { row: 6, input: { name: 'Bad phone names nobody', phone: '12' } },
];

describe('import plan', () => {
  it('without unique attributes, matches by mobile number and then e-mail', () => {
    expect(KEYS.map((k) => k.column)).toEqual(['phone_key', 'email_lower']);
    expect(duplicateKeys([{ name: 'email', is_unique: 1 }], 'CN').map((k) => k.column)).toEqual(['email_lower']);
    expect(duplicateKeys([{ name: 'phone', is_unique: 1 }], 'CN').map((k) => k.column)).toEqual(['phone_key']);
  });

  it('matches a mobile number however it is written: national for the region, or international', () => {
    const written = ['13800000001', '138 0000 0001', '+86 138-0000-0001', '0086 13800000001'];
    const items = written.map((phone, i) => ({ row: i + 2, input: { name: `Row ${i}`, phone } }));
    const plan = planImport(items, KEYS, storedByKey, 'update');
    expect(plan.updates.map((u) => u.current.id)).toEqual(['c-1', 'c-1', 'c-1', 'c-1']);
    // In a GB project, 07911 123456 and +44 7911 123456 are one number, and a new one.
    const gb = duplicateKeys([], 'GB');
    const gbPlan = planImport(
      [
        { row: 2, input: { name: 'A', phone: '07911 123456' } },
        { row: 3, input: { name: 'B', phone: '+44 7911 123456' } },
      ],
      gb,
      new Map(),
      'skip',
    );
    expect([gbPlan.fresh.length, gbPlan.skipped]).toEqual([1, 1]);
  });

  it('skip: stored and earlier duplicates are counted as skipped', () => {
    const plan = planImport(rows, KEYS, storedByKey, 'skip');
    expect(plan.skipped).toBe(3);
    expect(plan.updates).toEqual([]);
    expect(plan.fresh.map((f) => f.row)).toEqual([3, 6]);
  });

  it('update and merge: stored matches update, an earlier row of the file takes its duplicates', () => {
    for (const policy of ['update', 'merge'] as const) {
      const plan = planImport(rows, KEYS, storedByKey, policy);
      expect(plan.skipped).toBe(0);
      expect(plan.updates.map((u) => [u.item.row, u.current.id])).toEqual([
        [2, 'c-1'],
        [5, 'c-1'],
      ]);
      expect(plan.fresh.map((f) => [f.row, f.extra.map((e) => e.row)])).toEqual([
        [3, [4]],
        [6, []],
      ]);
    }
  });

  it('folds duplicates: update lets later non-blank values win, merge only fills blanks', () => {
    const entry = planImport(rows, KEYS, storedByKey, 'update').fresh[0]!;
    expect(combinedInput(entry, 'update')).toEqual({ name: 'New again', phone: '13800000002', company: 'B Co', email: 'b@example.com' });
    expect(combinedInput(entry, 'merge')).toEqual({ name: 'New', phone: '13800000002', company: 'B Co', email: 'b@example.com' });
  });

  it("writes createWay 7 and the import's group where a row names none", () => {
    expect(importInput({ name: 'X', createWay: '1' }, 'g-1')).toEqual({ name: 'X', create_way: '7', group_id: 'g-1' });
    expect(importInput({ name: 'X', groupId: 'g-2' }, 'g-1')).toEqual({ name: 'X', groupId: 'g-2', create_way: '7' });
    expect(importInput({ name: 'X' }, undefined)).toEqual({ name: 'X', create_way: '7' });
  });
});
