import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesced } from './coalesce.ts';

describe('a call coalesced over a burst of events', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the first request at once, and the rest of its second once at its end', () => {
    const run = vi.fn();
    const c = coalesced(run, 1000);
    c.request();
    vi.advanceTimersByTime(0);
    expect(run).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5000; i += 1) c.request();
    vi.advanceTimersByTime(999);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
    // Quiet afterwards: nothing more.
    vi.advanceTimersByTime(5000);
    expect(run).toHaveBeenCalledTimes(2);
    // A lone event after a quiet second is not delayed.
    c.request();
    vi.advanceTimersByTime(0);
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('drops a pending call when cancelled', () => {
    const run = vi.fn();
    const c = coalesced(run, 1000);
    c.request();
    c.cancel();
    vi.advanceTimersByTime(2000);
    expect(run).not.toHaveBeenCalled();
  });
});
