// lanes: sqlite
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendWebhook } from '../../src/events/webhook-sender.ts';
import { Relay } from '../../src/events/relay.ts';
import { UnsafeAddressError, addressProblem, connectChecked, isPrivateAddress } from '../../src/events/ssrf.ts';
import { type TestUser, activeUser, createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { PRIVATE_TARGETS, loopbackForms, startTripwire } from '../helpers/ssrf-forms.ts';
import { storedWebhookRow } from '../helpers/webhooks.ts';

/** Default settings: webhooks may not reach loopback, private or link-local addresses. */
const t = useTestServer();

afterEach(() => {
  vi.restoreAllMocks();
});

async function project(name: string): Promise<{ master: TestUser; appId: string }> {
  const master = await activeUser(t.server, await createClient(t.server));
  const appId = (await t.server.api.post('/api/v1.7/apps', { name }, { token: master.token })).json().data.appId as string;
  return { master, appId };
}

/** A webhook written straight to the database, past the registration check. */
async function storeHook(appId: string, createdBy: number, id: string, url: string): Promise<void> {
  await t.server.ctx.database.db
    .insertInto('webhooks')
    .values(storedWebhookRow(appId, createdBy, id, url))
    .execute();
}

describe('webhook address checks', () => {
  it('refuses private targets at registration and again at delivery (DNS rebinding)', async () => {
    const client = await createClient(t.server);
    const master = await activeUser(t.server, client);
    const appId = (await t.server.api.post('/api/v1.7/apps', { name: 'SSRF' }, { token: master.token })).json().data.appId as string;
    for (const url of [
      'http://127.0.0.1/x',
      'http://localhost:8080/',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://192.168.1.1/',
    ]) {
      const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url }, { token: master.token });
      expect(res.json(), url).toMatchObject({ status: 0, code: 'url_invalid' });
    }
    // A name that passed the check when registered but now points inside: the delivery refuses to connect.
    const receiver = await startReceiver();
    try {
      const db = t.server.ctx.database.db;
      await db
        .insertInto('webhooks')
        .values({
          id: 'rebound',
          app_id: appId,
          url: receiver.url.replace('127.0.0.1', 'localhost'),
          secret: 's',
          domain_types: null,
          status: 'active',
          disabled_reason: null,
          cursor: 0,
          created_by: master.id,
          created_at: Date.now(),
        })
        .execute();
      await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customers`, { name: 'x' }, { token: master.token });
      const relay = new Relay(t.server.ctx, { pollMs: 10, retryBaseMs: 10_000 });
      await relay.tick();
      await relay.tick();
      await relay.close();
      expect(receiver.requests()).toBe(0);
      const delivery = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('webhook_id', '=', 'rebound')
        .executeTakeFirstOrThrow();
      expect(delivery.last_error).toContain('non-public address');
    } finally {
      await receiver.close();
    }
  });

  it('refuses every form of a loopback or private address at registration, and never connects to one at delivery', async () => {
    const tripwire = await startTripwire();
    try {
      const { master, appId } = await project('SSRF forms');
      const forms = [...loopbackForms(tripwire.port), ...PRIVATE_TARGETS];
      for (const url of forms) {
        const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url }, { token: master.token });
        expect(res.json(), url).toMatchObject({ status: 0, code: 'url_invalid' });
      }
      // Webhooks already stored with these URLs (written before the check existed, say): the test
      // delivery answers the refusal, and the relay's deliveries fail the same way.
      for (const [i, url] of loopbackForms(tripwire.port).entries()) await storeHook(appId, master.id, `form-${i}`, url);
      for (const [i, url] of loopbackForms(tripwire.port).entries()) {
        const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/form-${i}/test`, {}, { token: master.token });
        expect(res.json(), url).toMatchObject({
          status: 1,
          data: { ok: false, status: null, error: expect.stringContaining('non-public') },
        });
      }
      await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customers`, { name: 'x' }, { token: master.token });
      const relay = new Relay(t.server.ctx, { pollMs: 10, retryBaseMs: 10_000 });
      await relay.tick();
      await relay.tick();
      await relay.close();
      const failed = await t.server.ctx.database.db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', 'last_error'])
        .where('app_id', '=', appId)
        .execute();
      expect(failed).toHaveLength(loopbackForms(tripwire.port).length);
      for (const d of failed) expect(d.last_error, d.webhook_id).toContain('non-public');
      expect(tripwire.connections()).toBe(0);
    } finally {
      await tripwire.close();
    }
  });

  it('checks the address a name resolves to at each delivery: a name that turned to loopback is never connected to', async () => {
    const tripwire = await startTripwire();
    try {
      const { master, appId } = await project('Rebinding');
      const url = `http://hooks.rebinding.test:${tripwire.port}/in`;
      // Public when registered, loopback (each form) when delivered.
      const answers: string[] = ['93.184.216.34', '127.0.0.1', '::1', '::ffff:127.0.0.1', '0.0.0.0', '10.0.0.7'];
      const lookup = vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
        if (host !== 'hooks.rebinding.test') throw new Error(`unexpected lookup of ${host}`);
        return [{ address: answers.shift() ?? '127.0.0.1', family: 4 }];
      }) as unknown as typeof dns.promises.lookup);
      const created = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url }, { token: master.token });
      expect(created.json().status).toBe(1);
      const id = created.json().data.id as string;
      for (let i = 0; i < 5; i++) {
        const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${id}/test`, {}, { token: master.token });
        expect(res.json().data, `answer ${i}`).toMatchObject({ ok: false, status: null, error: expect.stringContaining('non-public') });
      }
      expect(lookup).toHaveBeenCalledTimes(6);
      expect(tripwire.connections()).toBe(0);
    } finally {
      await tripwire.close();
    }
  });

  it('checks the connected address before writing a byte', async () => {
    const tripwire = await startTripwire();
    try {
      // connectChecked is handed a literal the caller did not check: the connection is refused once made, empty.
      for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        await expect(connectChecked(address, tripwire.port, false, new AbortController().signal)).rejects.toBeInstanceOf(
          UnsafeAddressError,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(tripwire.connections()).toBe(3);
      expect(tripwire.bytes()).toBe(0);
      // WEBHOOK_ALLOW_PRIVATE=true lets the same connection through.
      const socket = await connectChecked('127.0.0.1', tripwire.port, true, new AbortController().signal);
      socket.destroy();
    } finally {
      await tripwire.close();
    }
  });

  it('follows no redirect: a 3xx is the answer, and its target is not asked', async () => {
    const target = await startTripwire();
    let asked = 0;
    const redirector = http.createServer((req, res) => {
      asked += 1;
      req.resume();
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/inside` }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`;
      const result = await sendWebhook(url, 's', '[]', [], { timeoutMs: 2000, allowPrivate: true });
      expect(result).toEqual({ ok: false, status: 302, error: 'HTTP 302' });
      expect(asked).toBe(1);
      expect(target.connections()).toBe(0);
    } finally {
      await new Promise((r) => redirector.close(r));
      await target.close();
    }
  });

  it('speaks TLS over the checked connection and verifies the certificate', async () => {
    // A self-signed certificate (test/fixtures/tls): the handshake fails, so no request is made.
    const dir = new URL('../fixtures/tls/', import.meta.url);
    let requests = 0;
    const server = https.createServer(
      { key: fs.readFileSync(new URL('localhost-key.pem', dir)), cert: fs.readFileSync(new URL('localhost-cert.pem', dir)) },
      (req, res) => {
        requests += 1;
        res.writeHead(200).end();
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const result = await sendWebhook(url, 's', '[]', [], { timeoutMs: 2000, allowPrivate: true });
      expect(result).toMatchObject({ ok: false, status: null, error: expect.stringContaining('self-signed certificate') });
      expect(requests).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('classifies addresses', () => {
    const table: [string, string | null][] = [
      ['127.0.0.1', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['10.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.0.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.2.1', 'reserved'],
      ['240.0.0.1', 'reserved'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fe80::1', 'linkLocal'],
      ['fe80::1%eth0', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'reserved'],
      ['::ffff:127.0.0.1', 'ipv4Mapped embedding loopback'],
      ['::ffff:7f00:1', 'ipv4Mapped embedding loopback'],
      ['::ffff:a9fe:a9fe', 'ipv4Mapped embedding linkLocal'],
      ['::7f00:1', 'ipv4Compatible embedding loopback'],
      ['::ffff:0:a00:1', 'rfc6145 embedding private'],
      ['64:ff9b::7f00:1', 'rfc6052 embedding loopback'],
      ['64:ff9b:1::808:808', 'rfc6052'],
      ['2002:c0a8:101::1', '6to4 embedding private'],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo embedding loopback'],
      ['not an address', 'not an IP address'],
      // Public: the embedding forms of a public IPv4 address are as public as it is.
      ['93.184.216.34', null],
      ['8.8.8.8', null],
      ['2606:4700::1111', null],
      ['::ffff:8.8.8.8', null],
      ['64:ff9b::808:808', null],
      ['2002:808:808::1', null],
    ];
    for (const [address, problem] of table) expect(addressProblem(address), address).toBe(problem);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.1.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);
  });
});
