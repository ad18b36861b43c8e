// lanes: sqlite postgres
import { describe, expect, it } from 'vitest';
import { killOnceMailing, useMailingProcesses } from '../../helpers/mail-processes.ts';
import { freePort, provisionProject } from '../../helpers/process.ts';

/**
 * A campaign's sender killed (SIGKILL) in the middle of a campaign, and a server started again on the
 * same database: no recipient is mailed twice, none is forgotten. Those the dead process had handed
 * to SMTP, or was about to, end `unknown` and are not sent again; every other one is sent once.
 */
const RECIPIENTS = 240;
// A slow SMTP server, so that the kill lands while mail is going out; two connections.
const mailing = useMailingProcesses(2);
const { processes, serve } = mailing;
const WINDOW = mailing.window;

describe('kill -9 in the middle of a campaign', () => {
  it('mails no recipient twice and forgets none', { timeout: 120_000 }, async () => {
    const box = mailing.box;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await serve(port);
    const project = await provisionProject(base, processes.db.env, '13855550017');
    const ids = Array.from({ length: RECIPIENTS }, (_, i) => `crash-${i}`);
    const stored = await project.ingest(
      ids.map((id, i) => ({
        event_type: 'create',
        domainType: 'Customer',
        domainId: id,
        body: { name: `N${i}`, email: `r${i}@example.com` },
      })),
    );
    expect(await stored.json()).toMatchObject({ status: 1, data: { accepted: RECIPIENTS } });
    const created = await fetch(`${base}/api/v1.7/app/${project.appId}/posts`, {
      method: 'POST',
      headers: { ...project.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Crash', html: '<p>Hi {{name}}</p>', customer_ids: ids.join(',') }),
    });
    const campaign = ((await created.json()) as { data: { postId: string; recipientCount: number } }).data;
    expect(campaign.recipientCount).toBe(RECIPIENTS);

    // Killed once some mail went out, before all of it did.
    await killOnceMailing(first, box, 40);
    const beforeRestart = box.inbox.length;
    expect(beforeRestart).toBeLessThan(RECIPIENTS);

    // Started again: what the dead process left in `sending` becomes unknown after 1 s; the rest is sent.
    const second = await serve(port, { MAIL_SENDING_STALE_SECONDS: '1' });
    let progress: { status: string; states: Record<string, number> } = { status: '', states: {} };
    const until = Date.now() + 100_000;
    while (progress.status !== 'done') {
      if (Date.now() > until) throw new Error(`campaign not done: ${JSON.stringify(progress)}`);
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${base}/api/v1.7/app/${project.appId}/post/${campaign.postId}`, { headers: project.auth });
      progress = ((await res.json()) as { data: typeof progress }).data;
    }

    // Every recipient ends sent or unknown; at most one window of the dead sender is unknown.
    const { sent = 0, unknown = 0, ...others } = progress.states;
    expect(sent + unknown).toBe(RECIPIENTS);
    expect(Object.values(others).every((n) => n === 0)).toBe(true);
    expect(unknown).toBeLessThanOrEqual(WINDOW);
    // Nobody got the mail twice; everyone recorded as sent got it.
    const received = box.inbox.map((m) => m.to[0]);
    expect(new Set(received).size).toBe(received.length);
    expect(received.length).toBeGreaterThanOrEqual(sent);
    expect(received.length).toBeLessThanOrEqual(RECIPIENTS);
    // The Post record's counters say the same.
    const posts = await fetch(`${base}/api/v1.7/posts?app_id=${project.appId}`, { headers: project.auth });
    const listed = ((await posts.json()) as { postId: string; senderCount: number; successLogCount: number }[]).find(
      (x) => x.postId === campaign.postId,
    );
    expect(listed).toMatchObject({ senderCount: RECIPIENTS, successLogCount: sent });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('two server processes send one campaign together: each recipient is claimed and mailed once', { timeout: 120_000 }, async () => {
    const box = mailing.box;
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await serve(portA);
    const b = await serve(portB);
    const baseA = `http://127.0.0.1:${portA}`;
    const project = await provisionProject(baseA, processes.db.env, '13855550018');
    const ids = Array.from({ length: RECIPIENTS }, (_, i) => `two-${i}`);
    await project.ingest(
      ids.map((id, i) => ({
        event_type: 'create',
        domainType: 'Customer',
        domainId: id,
        body: { name: `T${i}`, email: `two${i}@example.com` },
      })),
    );
    const already = box.inbox.length;
    const created = await fetch(`${baseA}/api/v1.7/app/${project.appId}/posts`, {
      method: 'POST',
      headers: { ...project.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Two', html: '<p>Hi</p>', customer_ids: ids.join(',') }),
    });
    const postId = ((await created.json()) as { data: { postId: string } }).data.postId;
    let status = '';
    const until = Date.now() + 100_000;
    while (status !== 'done') {
      if (Date.now() > until) throw new Error('campaign not done');
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`http://127.0.0.1:${portB}/api/v1.7/app/${project.appId}/post/${postId}`, { headers: project.auth });
      status = ((await res.json()) as { data: { status: string } }).data.status;
    }
    const received = box.inbox.slice(already).map((m) => m.to[0]);
    expect(received).toHaveLength(RECIPIENTS);
    expect(new Set(received).size).toBe(RECIPIENTS);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });
});
