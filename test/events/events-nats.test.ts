// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { Relay } from '../../src/events/relay.ts';
import { activeUser, createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';

/** The real NATS server with JetStream (127.0.0.1:4222 here and in CI), on a stream of this run's own. */
const NATS_URL = process.env.RAPPORT_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const run = randomBytes(4).toString('hex');
const STREAM = `RAPPORT_TEST_${run}`;
const PREFIX = `rapporttest${run}`;
const t = useTestServer({ NATS_URL, NATS_STREAM: STREAM, NATS_SUBJECT_PREFIX: PREFIX });

afterAll(async () => {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(STREAM).catch(() => undefined);
  } finally {
    await nc.close();
  }
});

describe('NATS JetStream sink', () => {
  it('publishes each event once to rapport.<appId>.<domainType>; a forced re-publish is deduplicated', async () => {
    const client = await createClient(t.server);
    const master = await activeUser(t.server, client);
    const appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Nats' }, { token: master.token })).json().data.appId as string;
    const created = await t.server.api.post(
      `/api/v1.7/app/${appId}/member/${master.id}/customers`,
      { name: 'Published' },
      { token: master.token },
    );
    const customerId = created.json().data.id as string;
    const outbox = await t.server.ctx.database.db.selectFrom('outbox').select(['id', 'domain_type']).where('app_id', '=', appId).execute();
    expect(outbox).toHaveLength(2);

    const relay = new Relay(t.server.ctx, { pollMs: 10 });
    await relay.tick();

    const nc = await connect({ servers: NATS_URL });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(STREAM);
      expect(info.state.messages).toBe(2);
      const messages = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage(STREAM, { seq });
        if (m) messages.push(m);
      }
      const subjects = messages.map((m) => m.subject).sort();
      expect(subjects).toEqual([`${PREFIX}.${appId}.BehaviourLog`, `${PREFIX}.${appId}.Customer`]);
      const customerMsg = messages.find((m) => m.subject.endsWith('.Customer'));
      expect(customerMsg?.header?.get('Nats-Msg-Id')).toBe(outbox.find((o) => o.domain_type === 'Customer')?.id);
      expect(customerMsg?.json()).toMatchObject({
        event_type: 'create',
        domainType: 'Customer',
        domainId: customerId,
        body: { name: 'Published' },
      });
      // The behaviour event's body is built from the stored record when published.
      const behaviourMsg = messages.find((m) => m.subject.endsWith('.BehaviourLog'));
      expect(behaviourMsg?.json()).toMatchObject({
        id: outbox.find((o) => o.domain_type === 'BehaviourLog')?.id,
        event_type: 'create',
        domainType: 'BehaviourLog',
        body: { customerId, action: 'create', appId, customerName: 'Published', userType: 1, svcUserId: String(master.id) },
      });

      // A crash between publishing and saving the cursor: the relay publishes the same events again.
      await t.server.ctx.database.db.updateTable('event_cursors').set({ position: 0 }).where('name', '=', 'nats').execute();
      await relay.tick();
      expect((await jsm.streams.info(STREAM)).state.messages).toBe(2);
    } finally {
      await relay.close();
      await nc.close();
    }
  });
});
