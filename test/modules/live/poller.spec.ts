import { describe, expect, it } from 'vitest';
import { BackgroundJobs } from '../../../src/lib/jobs.ts';
import { LIVE_POLL_JOB, livePollJob } from '../../../src/modules/live/service.ts';
import { FakeClock, settle } from '../../helpers/fake-clock.ts';

/** A poller with streams opened and closed by the test, counting its polls; `failing` makes a poll throw. */
function fakePoller() {
  const state = { streams: 0, polls: 0, failing: false };
  return {
    state,
    poller: {
      active: () => state.streams > 0,
      async poll() {
        state.polls += 1;
        if (state.failing) throw new Error('database unreachable');
      },
    },
  };
}

function jobsOn(clock: FakeClock) {
  const failures: number[] = [];
  const jobs = new BackgroundJobs(clock, { ticked: () => {}, failed: (_name, _err, retryInMs) => failures.push(retryInMs) });
  return { jobs, failures };
}

describe('the live poller as a background job', () => {
  it('does not run before a stream opens; the first stream starts it with a poke', async () => {
    const clock = new FakeClock();
    const { jobs } = jobsOn(clock);
    const f = fakePoller();
    const job = jobs.define(livePollJob(f.poller, 250));
    await clock.advance(5000);
    expect(f.state.polls).toBe(0);
    expect(clock.pending).toBe(0);
    f.state.streams = 1;
    job.poke();
    await settle();
    expect(f.state.polls).toBe(1);
    expect(job.name).toBe(LIVE_POLL_JOB);
    await jobs.stop();
  });

  it('polls every pollMs while streams are open and reads nothing once they are closed', async () => {
    const clock = new FakeClock();
    const { jobs } = jobsOn(clock);
    const f = fakePoller();
    const job = jobs.define(livePollJob(f.poller, 250));
    f.state.streams = 2;
    job.poke();
    await settle();
    expect(f.state.polls).toBe(1);
    await clock.advance(249);
    expect(f.state.polls).toBe(1);
    await clock.advance(1);
    expect(f.state.polls).toBe(2);
    await clock.advance(1000);
    expect(f.state.polls).toBe(6);
    f.state.streams = 0;
    await clock.advance(5000);
    expect(f.state.polls).toBe(6);
    await jobs.stop();
    expect(clock.pending).toBe(0);
  });

  it('a failing poll is tried again after a wait doubling from pollMs up to 5 s', async () => {
    const clock = new FakeClock();
    const { jobs, failures } = jobsOn(clock);
    const f = fakePoller();
    const job = jobs.define(livePollJob(f.poller, 1000));
    f.state.streams = 1;
    f.state.failing = true;
    job.poke();
    await settle();
    await clock.advance(1000 + 2000 + 4000 + 5000);
    expect(failures).toEqual([1000, 2000, 4000, 5000, 5000]);
    f.state.failing = false;
    const before = f.state.polls;
    await clock.advance(5000);
    expect(f.state.polls).toBe(before + 1);
    await clock.advance(1000);
    expect(f.state.polls).toBe(before + 2);
    await jobs.stop();
  });
});
