import { describe, expect, it } from 'vitest';
import { Relay } from '../src/events/relay.ts';
import { isPrivateAddress } from '../src/events/ssrf.ts';
import { activeUser, createClient } from './helpers/fixtures.ts';
import { useTestServer } from './helpers/harness.ts';
import { startReceiver } from './helpers/receiver.ts';

/** Default settings: webhooks may not reach loopback, private or link-local addresses. */
const t = useTestServer();

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
      await relay.stop();
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

  it('classifies addresses', () => {
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
