import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULES as CONSOLE_DEFAULTS,
  LIMITS as CONSOLE_LIMITS,
  WEIGHT_KEYS as CONSOLE_WEIGHTS,
} from '../../console/src/features/scoring/model.ts';
import { DEFAULT_RULES, LIMITS, WEIGHT_KEYS } from '../../src/modules/scoring/rules.ts';

/** The console's scoring card shows the server's defaults and limits ("reset to defaults", each field's help). */
describe("the console's scoring defaults and limits", () => {
  it('are the server’s', () => {
    expect(CONSOLE_DEFAULTS).toEqual(DEFAULT_RULES);
    expect([...CONSOLE_WEIGHTS]).toEqual([...WEIGHT_KEYS]);
    const { fileIdLength: _, ...limits } = LIMITS;
    expect(CONSOLE_LIMITS).toEqual(limits);
  });
});
