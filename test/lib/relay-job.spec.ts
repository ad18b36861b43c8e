import { describe, expect, it } from 'vitest';
import { RELAY_JOB, type RelayPasses, relayJob } from '../../src/events/relay.ts';
import { BackgroundJobs } from '../../src/lib/jobs.ts';
import { FakeClock, settle } from '../helpers/fake-clock.ts';

/** A relay whose passes answer from a script (the last answer repeats): true (more work), false (idle), or a throw. */
function scriptedRelay(pollMs: number, answers: (boolean | Error)[]) {
  let passes = 0;
  let closed = 0;
  const relay: RelayPasses = {
    options: { pollMs },
    async tick() {
      const a = answers[Math.min(passes, answers.length - 1)] as boolean | Error;
      passes += 1;
      if (a instanceof Error) throw a;
      return a;
    },
    async close() {
      closed += 1;
    },
  };
  return { relay, passes: () => passes, closed: () => closed };
}

function jobsOn(clock: FakeClock) {
  const failures: number[] = [];
  const jobs = new BackgroundJobs(clock, { ticked: () => {}, failed: (_name, _err, retryInMs) => failures.push(retryInMs) });
  return { jobs, failures };
}

describe('the relay as a background job', () => {
  it('passes at once while there is more work, then every pollMs on the clock', async () => {
    const clock = new FakeClock();
    const { jobs } = jobsOn(clock);
    const r = scriptedRelay(100, [true, true, false]);
    jobs.define(relayJob(r.relay));
    jobs.start([RELAY_JOB]);
    await settle();
    expect(r.passes()).toBe(3);
    await clock.advance(99);
    expect(r.passes()).toBe(3);
    await clock.advance(1);
    expect(r.passes()).toBe(4);
    await clock.advance(300);
    expect(r.passes()).toBe(7);
    await jobs.stop();
  });

  it('a poke ends the idle wait: new events are relayed without waiting for pollMs', async () => {
    const clock = new FakeClock();
    const { jobs } = jobsOn(clock);
    const r = scriptedRelay(1000, [false]);
    const job = jobs.define(relayJob(r.relay));
    jobs.start();
    await settle();
    expect(r.passes()).toBe(1);
    job.poke();
    await settle();
    expect(r.passes()).toBe(2);
    await jobs.stop();
  });

  it('backs off while passes fail (NATS or the database unreachable), up to 30 s, and resumes its cadence', async () => {
    const clock = new FakeClock();
    const { jobs, failures } = jobsOn(clock);
    const down = new Error('nats: connection refused');
    const r = scriptedRelay(100, [down, down, down, down, down, down, down, down, down, down, false]);
    jobs.define(relayJob(r.relay));
    jobs.start();
    await settle();
    await clock.advance(100 + 200 + 400 + 800 + 1600 + 3200 + 6400 + 12_800 + 25_600 + 30_000);
    expect(failures).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000]);
    expect(r.passes()).toBe(11);
    // Healthy again: back to a pass every pollMs.
    await clock.advance(100);
    expect(r.passes()).toBe(12);
    await jobs.stop();
  });

  it('stopping waits for the pass under way, then closes the relay once', async () => {
    const clock = new FakeClock();
    const { jobs } = jobsOn(clock);
    let finish: (more: boolean) => void = () => {};
    let closedBeforePassEnded = false;
    const relay: RelayPasses & { closed: number } = {
      options: { pollMs: 100 },
      closed: 0,
      tick: () => new Promise<boolean>((resolve) => (finish = resolve)),
      async close() {
        relay.closed += 1;
      },
    };
    jobs.define(relayJob(relay));
    jobs.start();
    await settle();
    const stopped = jobs.stop();
    await settle();
    closedBeforePassEnded = relay.closed > 0;
    finish(true);
    await stopped;
    expect(closedBeforePassEnded).toBe(false);
    expect(relay.closed).toBe(1);
    expect(clock.pending).toBe(0);
  });
});
