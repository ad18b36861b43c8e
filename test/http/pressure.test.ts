// lanes: sqlite
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../helpers/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MAX_EVENT_LOOP_DELAY: '100' });
});
afterAll(async () => {
  await server.close();
});

const block = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the event loop is stuck, as under a flood of work
  }
};

describe('under pressure', () => {
  it('refuses requests with 503 overloaded and Retry-After while the event loop lags, and serves again after', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // Stuck past a sampling interval: the next sample sees the lag.
    block(1500);
    await new Promise((r) => setImmediate(r));
    let refused = await server.app.inject({ method: 'GET', url: '/api/v1.7/my-apps' });
    for (let i = 0; i < 20 && refused.statusCode !== 503; i++) {
      block(1200);
      await new Promise((r) => setTimeout(r, 5));
      refused = await server.app.inject({ method: 'GET', url: '/api/v1.7/my-apps' });
    }
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({ status: 0, code: 'overloaded', msg: expect.any(String) });
    // A request with a body is refused before the route too: the route does not run behind the 503
    // (it would answer a second time: "Reply was already sent").
    let posted = await server.app.inject({ method: 'POST', url: '/api/v1.7/app/none/events', payload: [] });
    for (let i = 0; i < 20 && posted.statusCode !== 503; i++) {
      block(1200);
      await new Promise((r) => setTimeout(r, 5));
      posted = await server.app.inject({ method: 'POST', url: '/api/v1.7/app/none/events', payload: [] });
    }
    expect(posted.statusCode).toBe(503);
    expect(posted.json()).toEqual({ status: 0, code: 'overloaded', msg: expect.any(String) });
    expect(server.logs.filter((l) => /already sent/i.test(String(l.msg)))).toEqual([]);
    // Once the loop is free again, requests are served (here: refused for having no token).
    let served = refused;
    for (let i = 0; i < 40 && served.statusCode === 503; i++) {
      await new Promise((r) => setTimeout(r, 100));
      served = await server.app.inject({ method: 'GET', url: '/api/v1.7/my-apps' });
    }
    expect(served.statusCode).toBe(403);
  });
});
