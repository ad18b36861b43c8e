// lanes: sqlite
import { describe, expect, it } from 'vitest';
import { RenderShares } from '../../../src/modules/files/render-shares.ts';

/** The renderer's shares between projects, on a clock the test moves. */
function shares(turnMs = 1000) {
  let now = 0;
  return { s: new RenderShares(turnMs, () => now), advance: (ms: number) => (now += ms) };
}

describe('the renderer shared between projects', () => {
  it('serves the project that has had least renderer time first, then the oldest waiting', () => {
    const { s, advance } = shares();
    s.present(['a', 'b']);
    s.started('a');
    advance(3000);
    s.ended();
    const order = s.order([
      { appId: 'a', oldest: 1 },
      { appId: 'b', oldest: 2 },
    ]);
    expect(order.map((p) => p.appId)).toEqual(['b', 'a']);
    expect(s.usedBy('a')).toBe(3000);
  });

  it('has the file under way give way once its project is a turn ahead of another with work', () => {
    const { s, advance } = shares();
    s.present(['a', 'b']);
    s.started('a');
    advance(900);
    expect(s.shouldGiveWay('a', ['a', 'b'])).toBe(false);
    advance(200);
    expect(s.shouldGiveWay('a', ['a', 'b'])).toBe(true);
    // Alone, it never gives way.
    expect(s.shouldGiveWay('a', ['a'])).toBe(false);
  });

  it('puts a project that comes a turn behind the least served, owing it nothing for the time it was away', () => {
    const { s, advance } = shares();
    s.present(['a']);
    s.started('a');
    advance(60_000);
    s.ended();
    s.started('a');
    advance(10);
    // b arrives: a minute of a's time is not b's credit, but b is behind, so a gives way now.
    expect(s.shouldGiveWay('a', ['a', 'b'])).toBe(true);
    expect(s.usedBy('b')).toBe(59_000);
    s.ended();
    // b, gone, is forgotten; back later, it starts a turn behind again.
    s.present(['a']);
    s.present(['a', 'b']);
    expect(s.usedBy('b')).toBe(s.usedBy('a') - 1000);
  });
});
