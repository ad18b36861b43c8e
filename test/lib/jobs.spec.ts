import { describe, expect, it } from 'vitest';
import { BackgroundJobs, type JobDefinition, type TickOutcome } from '../../src/lib/jobs.ts';
import { FakeClock, settle } from '../helpers/fake-clock.ts';

function recorder() {
  const ticks: { name: string; outcome: string }[] = [];
  const failures: { name: string; retryInMs: number }[] = [];
  return {
    ticks,
    failures,
    events: {
      ticked: (name: string, outcome: string) => ticks.push({ name, outcome }),
      failed: (name: string, _err: unknown, retryInMs: number) => failures.push({ name, retryInMs }),
    },
  };
}

/** A job whose ticks answer from a script (the last answer repeats), counting its ticks. */
function scripted(name: string, answers: (TickOutcome | Error)[], extra: Partial<JobDefinition> = {}) {
  let n = 0;
  const def: JobDefinition = {
    name,
    idleMs: 1000,
    async tick() {
      const a = answers[Math.min(n, answers.length - 1)] as TickOutcome | Error;
      n += 1;
      if (a instanceof Error) throw a;
      return a;
    },
    ...extra,
  };
  return { def, count: () => n };
}

describe('background jobs', () => {
  it('ticks at once while there is work, then waits idleMs on the clock', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    const s = scripted('sweep', ['worked', 'worked', 'idle']);
    jobs.define(s.def);
    jobs.start();
    await settle();
    expect(s.count()).toBe(3);
    await clock.advance(999);
    expect(s.count()).toBe(3);
    await clock.advance(1);
    expect(s.count()).toBe(4);
    await jobs.stop();
  });

  it('a poke ends an idle wait early; a startOnPoke job starts on its first poke', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    const lazy = scripted('render', ['idle'], { startOnPoke: true });
    const job = jobs.define(lazy.def);
    await settle();
    expect(lazy.count()).toBe(0);
    job.poke();
    await settle();
    expect(lazy.count()).toBe(1);
    job.poke();
    await settle();
    expect(lazy.count()).toBe(2);
    await jobs.stop();
  });

  it('a poke during a tick skips the next wait', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    let n = 0;
    const job: { poke(): void } = jobs.define({
      name: 'merge',
      idleMs: 1000,
      async tick() {
        n += 1;
        if (n === 2) job.poke();
        return 'idle';
      },
    });
    jobs.start();
    await settle();
    expect(n).toBe(1);
    await clock.advance(1000);
    // The second tick was poked while it ran: the third follows without a wait.
    expect(n).toBe(3);
    await jobs.stop();
  });

  it('a job without startOnPoke ignores pokes until started', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    const s = scripted('send', ['idle']);
    const job = jobs.define(s.def);
    job.poke();
    await settle();
    expect(s.count()).toBe(0);
    jobs.start();
    await settle();
    expect(s.count()).toBe(1);
    await jobs.stop();
  });

  it('backs off after failures, doubling up to the maximum, and reports each', async () => {
    const clock = new FakeClock();
    const r = recorder();
    const jobs = new BackgroundJobs(clock, r.events);
    const boom = new Error('database away');
    const s = scripted('relay', [boom, boom, boom, boom, 'idle'], { maxBackoffMs: 3000 });
    jobs.define(s.def);
    jobs.start();
    await settle();
    expect(r.failures.map((f) => f.retryInMs)).toEqual([1000]);
    await clock.advance(1000);
    await clock.advance(2000);
    await clock.advance(3000);
    expect(r.failures.map((f) => f.retryInMs)).toEqual([1000, 2000, 3000, 3000]);
    await clock.advance(3000);
    expect(s.count()).toBe(5);
    expect(r.ticks.filter((t) => t.outcome === 'failed')).toHaveLength(4);
    await jobs.stop();
  });

  it('waits as long as a tick asks', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    const s = scripted('mail', [{ waitMs: 5000 }]);
    jobs.define(s.def);
    jobs.start();
    await settle();
    await clock.advance(4999);
    expect(s.count()).toBe(1);
    await clock.advance(1);
    expect(s.count()).toBe(2);
    await jobs.stop();
  });

  it('runs several loops side by side', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    let inFlight = 0;
    let most = 0;
    jobs.define({
      name: 'parallel',
      idleMs: 1000,
      loops: 3,
      async tick() {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await settle();
        inFlight -= 1;
        return 'idle';
      },
    });
    jobs.start();
    await settle();
    await settle();
    expect(most).toBe(3);
    await jobs.stop();
  });

  it('stop waits for the tick under way, lets it see the stop, then calls stopped once', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    let release: () => void = () => {};
    let sawStop = false;
    let stoppedCalls = 0;
    jobs.define({
      name: 'long',
      idleMs: 1000,
      async tick(run) {
        await new Promise<void>((r) => (release = r));
        sawStop = run.stopping;
        return 'worked';
      },
      stopped: () => {
        stoppedCalls += 1;
      },
    });
    jobs.start();
    await settle();
    let done = false;
    const stopping = jobs.stop().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    release();
    await stopping;
    expect(sawStop).toBe(true);
    expect(stoppedCalls).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('stopping is called when a stop is asked, so a long tick can be aborted', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    let abort: () => void = () => {};
    jobs.define({
      name: 'render',
      idleMs: 1000,
      tick: () => new Promise<'worked'>((resolve) => (abort = () => resolve('worked'))),
      stopping: () => abort(),
    });
    jobs.start();
    await settle();
    await jobs.stop();
    expect(clock.pending).toBe(0);
  });

  it('runUntilIdle ticks without a loop until nothing is due', async () => {
    const clock = new FakeClock();
    const jobs = new BackgroundJobs(clock, recorder().events);
    const s = scripted('merge', ['worked', 'worked', 'idle']);
    jobs.define(s.def);
    expect(await jobs.runUntilIdle('merge')).toBe(2);
    expect(s.count()).toBe(3);
  });

  it('refuses two jobs of one name and an unknown name', () => {
    const jobs = new BackgroundJobs(new FakeClock(), recorder().events);
    jobs.define(scripted('a', ['idle']).def);
    expect(() => jobs.define(scripted('a', ['idle']).def)).toThrow(/defined already/);
    expect(() => jobs.start(['b'])).toThrow(/no background job/);
  });
});
