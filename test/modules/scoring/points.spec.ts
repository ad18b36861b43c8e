// lanes: sqlite
/**
 * The pure parts of scoring (docs/scoring.md): the order key orders customers as their decayed scores
 * do at any time; a score is the same whatever order its records come in; merging two states sums
 * them; site key pages match by host or path prefix; accounts by company, else a company's e-mail
 * domain; the rules' input checked and merged; reasons in words relative to the day.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../../src/lib/time.ts';
import { accountOf } from '../../../src/modules/scoring/accounts.ts';
import {
  DAY_MS,
  type PointsContext,
  type ScoredRecord,
  applyRecords,
  decayed,
  emptyState,
  keyOf,
  mergeStates,
  scoreOfKey,
} from '../../../src/modules/scoring/points.ts';
import { presentReasons } from '../../../src/modules/scoring/reasons.ts';
import { DEFAULT_RULES, mergeRules, siteKeyPageOf } from '../../../src/modules/scoring/rules.ts';

const H = 14 * DAY_MS;
const T0 = Date.UTC(2026, 10, 5, 9, 0, 0);
const ctx: PointsContext = { rules: DEFAULT_RULES, views: new Map(), files: new Map(), links: new Map() };
const form = (id: string, at: number): ScoredRecord => ({ id, action: 'submit_form', at, content: {} });

describe('the score', () => {
  it('orders by key as by the decayed score, at any time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.integer({ min: 0, max: 200 * DAY_MS })), {
          minLength: 2,
          maxLength: 20,
        }),
        fc.integer({ min: 200 * DAY_MS, max: 400 * DAY_MS }),
        (scores, later) => {
          const keyed = scores.map(([v, at]) => ({ key: keyOf(v, T0 + at, H), now: decayed(v, T0 + at, T0 + later, H) }));
          const byKey = [...keyed].sort((a, b) => b.key - a.key).map((k) => k.now);
          for (let i = 1; i < byKey.length; i += 1)
            expect((byKey[i - 1] as number) * (1 + 1e-9)).toBeGreaterThanOrEqual(byKey[i] as number);
          for (const k of keyed) expect(scoreOfKey(k.key, T0 + later, H)).toBeCloseTo(k.now, 6);
        },
      ),
    );
  });

  it('is the same whatever order its records come in, one write or many', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 60 * DAY_MS }), { minLength: 1, maxLength: 30 }), (offsets) => {
        const records = offsets.map((o, i) => form(`r${i}`, T0 + o));
        const once = applyRecords(
          emptyState(),
          [...records].sort((a, b) => a.at - b.at),
          ctx,
        );
        let piecewise = emptyState();
        for (const r of [...records].reverse()) piecewise = applyRecords(piecewise, [r], ctx);
        const at = T0 + 61 * DAY_MS;
        const expected = records.reduce((sum, r) => sum + 15 * 2 ** (-(at - r.at) / H), 0);
        expect(decayed(once.value, once.refAt, at, H)).toBeCloseTo(expected, 6);
        expect(decayed(piecewise.value, piecewise.refAt, at, H)).toBeCloseTo(expected, 6);
        expect(once.riseAt).toBe(Math.max(...records.map((r) => r.at)));
      }),
    );
  });

  it('merges two customers: values summed, reasons of one key joined, the later rise kept', () => {
    const a = applyRecords(emptyState(), [form('a', T0)], ctx);
    const b = applyRecords(emptyState(), [form('b', T0 + DAY_MS)], ctx);
    const m = mergeStates(a, b, H);
    expect(decayed(m.value, m.refAt, T0 + DAY_MS, H)).toBeCloseTo(15 * 2 ** (-1 / 14) + 15, 6);
    expect(m.reasons).toHaveLength(1);
    expect(m.reasons[0]).toMatchObject({ key: 'form:site', n: 2, first: T0, at: T0 + DAY_MS });
    expect(m.riseAt).toBe(T0 + DAY_MS);
  });
});

describe('rules', () => {
  it('match site key pages by host and path, or by a path alone', () => {
    const rules = { ...DEFAULT_RULES, siteKeyPages: ['example.com/pricing', '/demo'] };
    expect(siteKeyPageOf(rules, 'https://www.Example.com/Pricing/plans?x=1')).toBe('example.com/pricing');
    expect(siteKeyPageOf(rules, 'http://shop.example.org/demo')).toBe('/demo');
    expect(siteKeyPageOf(rules, 'https://example.com/about')).toBeNull();
    expect(siteKeyPageOf(rules, 'https://evil.example/example.com/pricing')).toBeNull();
  });

  it('take each setting by either name, weights one by one, lists as a whole', () => {
    const merged = mergeRules(DEFAULT_RULES, { weights: { form: 20 }, keyPages: [{ file_id: 'f', pages: [3, 1, 3] }], deckShare: '0.75' });
    expect(merged.weights).toMatchObject({ form: 20, deck_read: 10 });
    expect(merged.keyPages).toEqual([{ fileId: 'f', pages: [1, 3] }]);
    expect(merged.deckShare).toBe(0.75);
    expect(() => mergeRules(DEFAULT_RULES, { weights: { form: '0x10' } })).toThrow(/weights.form/);
  });
});

describe('accounts', () => {
  it('by company (spaces and case aside), else the e-mail domain unless free mail, else the customer alone', () => {
    expect(accountOf({ id: '1', company: '  Acme   Ltd ', email_lower: 'x@gmail.com' })).toMatchObject({
      key: 'company:acme ltd',
      kind: 'company',
    });
    expect(accountOf({ id: '2', company: '', email_lower: 'bob@acme.example' })).toMatchObject({
      key: 'domain:acme.example',
      kind: 'domain',
    });
    for (const free of ['gmail.com', 'qq.com', '163.com', 'outlook.com'])
      expect(accountOf({ id: '3', company: null, email_lower: `x@${free}` })).toMatchObject({ key: 'customer:3', kind: 'customer' });
  });
});

describe('reasons', () => {
  it('say when, relative to the day in the server zone', () => {
    const clock = new Clock('UTC');
    const state = applyRecords(emptyState(), [form('a', Date.UTC(2026, 10, 2, 10)), form('b', Date.UTC(2026, 10, 4, 10))], ctx);
    expect(presentReasons(clock, state.reasons, T0, H)[0]?.text).toBe('filled in a form on the site twice since Monday');
    expect(presentReasons(clock, state.reasons, T0 + 10 * DAY_MS, H)[0]?.text).toBe('filled in a form on the site twice since 2026-11-02');
    const one = applyRecords(emptyState(), [form('c', T0 - 3600_000)], ctx);
    expect(presentReasons(clock, one.reasons, T0, H)[0]).toMatchObject({
      text: 'filled in a form on the site today',
      count: 1,
      points: 15,
    });
    expect(presentReasons(clock, one.reasons, T0 + DAY_MS, H)[0]?.text).toBe('filled in a form on the site yesterday');
  });
});
