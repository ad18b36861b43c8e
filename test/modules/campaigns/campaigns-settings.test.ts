// lanes: sqlite postgres
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { type TestServer, startTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * Campaign settings that need a server of their own: DKIM signing, the machine-open window after a
 * send, and an SMTP server that cannot be reached (nothing is lost: the recipients wait, queued).
 */
const BASE = 'https://rapport.example';
const PERSON_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-dkim-'));
const keyFile = path.join(dir, 'dkim.pem');
fs.writeFileSync(keyFile, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));

let box: Awaited<ReturnType<typeof startMailbox>>;
const servers: TestServer[] = [];
beforeAll(async () => {
  box = await startMailbox();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await box.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serverWith(env: Record<string, string>): Promise<{ server: TestServer; p: HistoryProject; customer: string }> {
  const server = await startTestServer({ PUBLIC_BASE_URL: BASE, MAIL_RATE_PER_SECOND: '1000', ...env });
  servers.push(server);
  const p = await historyProject(server);
  const now = Date.now();
  const customer = `set-${Math.random().toString(36).slice(2)}`;
  await server.ctx.database.db
    .insertInto('customers')
    .values({
      id: customer,
      app_id: p.appId,
      owner_id: p.sales.id,
      name: 'Dee',
      email: `${customer}@example.com`,
      status: 1,
      is_new: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { server, p, customer };
}

async function campaign(server: TestServer, p: HistoryProject, customer: string): Promise<string> {
  const res = await server.api.post(
    `/api/v1.7/app/${p.appId}/posts`,
    { title: 'Settings', html: '<p>Hi {{name}}</p>', customer_ids: customer },
    { token: p.sales.token },
  );
  expect(res.json(), res.body).toMatchObject({ status: 1 });
  return (res.json() as { data: { postId: string } }).data.postId;
}

describe('campaign settings', () => {
  it('signs every mail with DKIM when a key is configured; opens right after the send are a machine’s', async () => {
    const { server, p, customer } = await serverWith({
      SMTP_URL: `smtp://127.0.0.1:${box.port}`,
      MAIL_DKIM_DOMAIN: 'rapport.example',
      MAIL_DKIM_SELECTOR: 'mail2026',
      MAIL_DKIM_KEY_FILE: keyFile,
      MAIL_MACHINE_OPEN_SECONDS: '3600',
    });
    const postId = await campaign(server, p, customer);
    await server.services.campaignSender.drain();
    const mail = box.inbox.find((m) => m.mail.headers.get('x-rapport-post') === postId);
    expect(mail).toBeDefined();
    const dkim = mail!.mail.headerLines.find((h) => h.key === 'dkim-signature')?.line.replace(/\r?\n\s+/g, ' ') ?? '';
    expect(dkim).toMatch(/d=rapport\.example/);
    expect(dkim).toMatch(/s=mail2026/);
    expect(dkim).toMatch(/h=[^;]*List-Unsubscribe/i);

    // Within the hour after the send, even a person's browser counts as a machine.
    const pixel = /<img src="([^"]+)"/.exec(mail!.mail.html as string)![1]!.slice(BASE.length);
    expect((await server.api.get(pixel, { headers: { 'user-agent': PERSON_UA } })).statusCode).toBe(200);
    const posts = await server.api.get('/api/v1.7/posts', { token: p.master.token, query: { app_id: p.appId } });
    expect((posts.json() as Record<string, unknown>[]).find((x) => x.postId === postId)).toMatchObject({
      successLogCount: 1,
      viewLogCount: 0,
    });
  });

  it('an SMTP server that cannot be reached fails no one: the recipients stay queued', async () => {
    const { server, p, customer } = await serverWith({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
    const postId = await campaign(server, p, customer);
    await server.services.campaignSender.drain();
    const res = await server.api.get(`/api/v1.7/app/${p.appId}/post/${postId}`, { token: p.sales.token });
    expect(res.json()).toMatchObject({ status: 1, data: { status: 'active', states: { queued: 1, sending: 0, failed: 0, unknown: 0 } } });
  });

  it('refuses half a DKIM configuration at start', async () => {
    expect(() => loadConfig({ MAIL_DKIM_DOMAIN: 'rapport.example' })).toThrow(
      /MAIL_DKIM_DOMAIN, MAIL_DKIM_SELECTOR and MAIL_DKIM_KEY_FILE/,
    );
    expect(() =>
      loadConfig({ MAIL_DKIM_DOMAIN: 'a.example', MAIL_DKIM_SELECTOR: 's', MAIL_DKIM_KEY_FILE: path.join(dir, 'none.pem') }),
    ).toThrow(/MAIL_DKIM_KEY_FILE cannot be read/);
  });
});
