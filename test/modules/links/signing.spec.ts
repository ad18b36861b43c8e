import { describe, expect, it } from 'vitest';
import type { LinkRow } from '../../../src/modules/links/mapper.ts';
import { UNLOCK_TTL_S, createLinkSigning } from '../../../src/modules/links/signing.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

const link = (over: Partial<LinkRow> = {}) => ({ id: 'link-1', passcode_hash: 'hash-1', ...over }) as LinkRow;

function setUp() {
  const clock = new FakeClock();
  let reads = 0;
  const signing = createLinkSigning(clock, async () => {
    reads += 1;
    return Buffer.alloc(32, 3);
  });
  return { clock, signing, reads: () => reads };
}

describe("the viewer's signed values", () => {
  it('reads the server secret once for all three keys', async () => {
    const t = setUp();
    await t.signing.viewToken('link-1', 'view-1');
    await t.signing.unlockCookie(link(), { passcode: true, gate: false });
    await t.signing.handoffToken('app-1', 'visitor-1');
    expect(t.reads()).toBe(1);
  });

  it('a view token names its view for its link for a day', async () => {
    const t = setUp();
    const token = await t.signing.viewToken('link-1', 'view-1');
    expect(await t.signing.viewOf(token, 'link-1')).toBe('view-1');
    expect(await t.signing.viewOf(token, 'link-2')).toBeNull();
    expect(await t.signing.viewOf(`${token}x`, 'link-1')).toBeNull();
    await t.clock.advance(24 * 3600_000);
    expect(await t.signing.viewOf(token, 'link-1')).toBe('view-1');
    await t.clock.advance(1000);
    expect(await t.signing.viewOf(token, 'link-1')).toBeNull();
  });

  it('an unlock cookie proves its passcode until the passcode changes, and lasts UNLOCK_TTL_S', async () => {
    const t = setUp();
    const cookie = await t.signing.unlockCookie(link(), { passcode: true, gate: true });
    expect(await t.signing.unlockedOf(link(), cookie)).toEqual({ passcode: true, gate: true });
    expect(await t.signing.unlockedOf(link({ passcode_hash: 'hash-2' }), cookie)).toEqual({ passcode: false, gate: true });
    expect(await t.signing.unlockedOf(link({ id: 'link-2' }), cookie)).toEqual({ passcode: false, gate: false });
    expect(await t.signing.unlockedOf(link(), undefined)).toEqual({ passcode: false, gate: false });
    await t.clock.advance(UNLOCK_TTL_S * 1000 + 1000);
    expect(await t.signing.unlockedOf(link(), cookie)).toEqual({ passcode: false, gate: false });
  });

  it("a site hand-off names its visitor in its project for 30 days; another key's value is not one", async () => {
    const t = setUp();
    const handoff = await t.signing.handoffToken('app-1', 'visitor-1');
    expect(await t.signing.handedOffVisitor('app-1', handoff)).toBe('visitor-1');
    expect(await t.signing.handedOffVisitor('app-2', handoff)).toBeNull();
    const viewToken = await t.signing.viewToken('app-1', 'visitor-1');
    expect(await t.signing.handedOffVisitor('app-1', viewToken)).toBeNull();
    await t.clock.advance(30 * 24 * 3600_000 + 1000);
    expect(await t.signing.handedOffVisitor('app-1', handoff)).toBeNull();
  });
});
