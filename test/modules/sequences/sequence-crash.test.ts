// lanes: sqlite postgres
import { describe, expect, it } from 'vitest';
import { stepCampaignId } from '../../../src/modules/campaigns/sequence-mail.service.ts';
import { killOnceMailing, useMailingProcesses } from '../../helpers/mail-processes.ts';
import { freePort, provisionProject } from '../../helpers/process.ts';

/**
 * A server killed (SIGKILL) while a sequence's first step is being run and mailed to its customers,
 * and a server started again on the same database: no customer gets the step twice, none is
 * forgotten. Each enrolment's step runs once (its step run's primary key), each mail goes through the
 * campaigns' queue, whose crash-safe states leave what the dead process was handing to SMTP `unknown`.
 */
const CUSTOMERS = 240;
// A slow SMTP server, so that the kill lands while mail is going out; two connections.
const mailing = useMailingProcesses(2);
const { processes, serve } = mailing;
const WINDOW = mailing.window;

describe('kill -9 while a sequence step is mailed', () => {
  it('never sends a step twice, and forgets none', { timeout: 120_000 }, async () => {
    const box = mailing.box;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await serve(port);
    const project = await provisionProject(base, processes.db.env, '13855550039');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1.7/app/${project.appId}${path}`, {
        method,
        headers: { ...project.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as { status: number; data: Record<string, unknown> };
      expect(json.status, JSON.stringify(json)).toBe(1);
      return json.data;
    };
    const ids = Array.from({ length: CUSTOMERS }, (_, i) => `seq-crash-${i}`);
    const stored = await project.ingest(
      ids.map((id, i) => ({
        event_type: 'create',
        domainType: 'Customer',
        domainId: id,
        body: { name: `N${i}`, email: `s${i}@example.com` },
      })),
    );
    expect(await stored.json()).toMatchObject({ status: 1, data: { accepted: CUSTOMERS } });
    // Any hour of any day is in the window: the real clock runs this test.
    await call('PUT', '/sequence-settings', {
      timeZone: 'UTC',
      windowStart: '00:00',
      windowEnd: '24:00',
      days: [1, 2, 3, 4, 5, 6, 7],
      dailyCap: 10_000,
    });
    const made = await call('POST', '/sequences', {
      name: 'Crash',
      steps: [{ type: 'email', waitDays: 0, title: 'Step one', html: '<p>Hi {{name}}</p>' }],
    });
    const sequenceId = made.id as string;
    await call('POST', `/sequence/${sequenceId}/enrollments`, { customer_ids: ids });

    // Killed once some of the step's mail went out, before all of it did.
    await killOnceMailing(first, box, 40);
    expect(box.inbox.length).toBeLessThan(CUSTOMERS);

    // Started again: what the dead sender left in `sending` is unknown after 1 s; the runner's leases run out; the rest goes.
    const second = await serve(port, { MAIL_SENDING_STALE_SECONDS: '1', SEQUENCE_LEASE_SECONDS: '1' });
    const postId = stepCampaignId(project.appId, sequenceId, 1, 0);
    let counts: Record<string, number> = {};
    let progress: { status: string; states: Record<string, number> } = { status: '', states: {} };
    const deadline = Date.now() + 100_000;
    while ((counts.finished ?? 0) < CUSTOMERS || progress.status !== 'done') {
      if (Date.now() > deadline) throw new Error(`not done: ${JSON.stringify({ counts, progress })}`);
      await new Promise((r) => setTimeout(r, 200));
      counts = (await call('GET', `/sequence/${sequenceId}`)).enrollments as Record<string, number>;
      progress = (await call('GET', `/post/${postId}`)) as typeof progress;
    }

    // Every customer's step ran once: one recipient row each, sent or unknown, never both, never twice.
    const { sent = 0, unknown = 0, ...others } = progress.states;
    expect(sent + unknown).toBe(CUSTOMERS);
    expect(Object.values(others).every((n) => n === 0)).toBe(true);
    expect(unknown).toBeLessThanOrEqual(WINDOW);
    const received = box.inbox.map((m) => m.to[0]);
    expect(new Set(received).size).toBe(received.length);
    expect(received.length).toBeGreaterThanOrEqual(sent);
    expect(received.length).toBeLessThanOrEqual(CUSTOMERS);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
