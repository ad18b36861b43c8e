/**
 * The producers' batch path (batch.service.ts) with fake record owners and the fake clock:
 * what it hands the record writer, how it resolves references and refuses items, without a database.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context.ts';
import type { AppError } from '../../../src/http/errors.ts';
import type { AccessService } from '../../../src/modules/access/service.ts';
import { createBatchIngestion } from '../../../src/modules/ingest/batch.service.ts';
import type { WritePlan } from '../../../src/modules/ingest/plans.ts';
import type { RecordOwners, RecordWriter } from '../../../src/modules/ingest/write.service.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

const APP = 'app-1';

interface Stored {
  /** Record ids per table, with their project. */
  ids: Record<string, Map<string, string>>;
  customers: Map<string, { owner_id: number; merged_customer_id: string | null }>;
  /** Platform users with a member record in APP, and their status (0 active). */
  members: Map<number, number>;
}

function setUp(stored: Partial<Stored> = {}) {
  const clock = new FakeClock();
  const ids = stored.ids ?? {};
  const customers = stored.customers ?? new Map();
  const members = stored.members ?? new Map([[7, 0]]);
  const written: WritePlan[] = [];
  const observed: unknown[] = [];
  const lookedUp: string[] = [];
  const projectsOf = (table: string, list: string[]) => {
    lookedUp.push(table);
    return new Map(list.flatMap((id) => (ids[table]?.has(id) ? [[id, ids[table]?.get(id) as string] as const] : [])));
  };
  const ctx = { clock, database: { db: {} }, observer: { ingested: (r: unknown) => observed.push(r) } } as unknown as AppContext;
  const owners = {
    behaviour: { storedProjects: async (list: string[]) => projectsOf('behaviour_logs', list) },
    histories: { storedProjects: async (table: string, list: string[]) => projectsOf(table, list) },
    links: {
      storedProjects: async (table: string, list: string[]) => projectsOf(table, list),
      tagsOf: async () => new Map(),
      takenShareTokens: async () => [],
    },
    customers: {
      storedProjects: async (list: string[]) => projectsOf('customers', list),
      ofProject: async (_app: string, list: string[]) =>
        new Map(list.flatMap((id) => (customers.has(id) ? [[id, customers.get(id)]] : []))),
    },
  } as unknown as RecordOwners;
  const access = {
    memberRecord: async (_app: string, userId: number) => (members.has(userId) ? { user_id: userId, status: members.get(userId) } : null),
  } as unknown as AccessService;
  const writer = { write: async (plan: WritePlan) => void written.push(plan) } as unknown as RecordWriter;
  const batches = createBatchIngestion(ctx, { ...owners, access, writer });
  const caller = { appId: APP, defaultOwner: 7, by: 'secret' as const };
  return { clock, batches, caller, written, observed, lookedUp };
}

const behaviour = (id: string, customerId: string, extra: Record<string, unknown> = {}) => ({
  event_type: 'create',
  domainType: 'BehaviourLog',
  domainId: id,
  body: {
    customerId,
    action: 'access_site',
    when: '2026-11-01 08:00:00',
    content: JSON.stringify({ web_access_log_id: `w-${id}`, title: 'Pricing' }),
    ...extra,
  },
});

async function refusal(p: Promise<unknown>): Promise<AppError & { extra?: { errors: { index: number; msg: string }[] } }> {
  try {
    await p;
  } catch (err) {
    return err as AppError & { extra?: { errors: { index: number; msg: string }[] } };
  }
  throw new Error('expected a refusal');
}

describe('ingestion of a producer batch', () => {
  it("writes a behaviour record of a stored customer with its event, its day's rollup and the customer's owner", async () => {
    const t = setUp({ customers: new Map([['c-1', { owner_id: 7, merged_customer_id: null }]]) });
    expect(await t.batches.ingest(t.caller, [behaviour('b-1', 'c-1')])).toEqual({ accepted: 1, duplicates: 0 });
    expect(t.written).toHaveLength(1);
    const plan = t.written[0] as WritePlan;
    expect(plan.behaviourRows).toMatchObject([{ id: 'b-1', app_id: APP, customer_id: 'c-1', svc_user_id: '7' }]);
    expect(plan.events).toMatchObject([{ event_type: 'create', domainType: 'BehaviourLog', domainId: 'b-1' }]);
    expect(plan.rollups).toContainEqual({
      app_id: APP,
      customer_id: 'c-1',
      day: '2026-11-01',
      kind: 'action',
      key: 'access_site',
      count: 1,
    });
    expect(plan).toMatchObject({ appId: APP, now: t.clock.now(), records: 1, customers: [] });
    expect(t.observed).toEqual([{ accepted: 1, duplicates: 0 }]);
    // Stored behaviour ids are asked of their owner, once per table.
    expect(t.lookedUp).toEqual(['behaviour_logs']);
  });

  it('skips a record stored in the project and a repeat inside the batch as duplicates, writing the rest once', async () => {
    const t = setUp({
      ids: { behaviour_logs: new Map([['b-old', APP]]) },
      customers: new Map([['c-1', { owner_id: 7, merged_customer_id: null }]]),
    });
    const answer = await t.batches.ingest(t.caller, [behaviour('b-old', 'c-1'), behaviour('b-new', 'c-1'), behaviour('b-new', 'c-1')]);
    expect(answer).toEqual({ accepted: 1, duplicates: 2 });
    expect((t.written[0] as WritePlan).behaviourRows.map((r) => r.id)).toEqual(['b-new']);
  });

  it("refuses the whole batch, naming each bad item's index, and writes nothing", async () => {
    const t = setUp({
      ids: { behaviour_logs: new Map([['b-theirs', 'app-2']]) },
      customers: new Map([['c-1', { owner_id: 7, merged_customer_id: null }]]),
    });
    const err = await refusal(
      t.batches.ingest(t.caller, [
        behaviour('b-ok', 'c-1'),
        behaviour('b-theirs', 'c-1'),
        behaviour('b-lost', 'c-missing'),
        { event_type: 'update' },
      ]),
    );
    expect(err.code).toBe('invalid_events');
    expect(err.extra?.errors).toEqual([
      { index: 1, msg: 'BehaviourLog id b-theirs is already used by another project' },
      { index: 2, msg: 'customer c-missing not found in this project (nor earlier in the batch)' },
      { index: 3, msg: "event_type must be 'create'" },
    ]);
    expect(t.written).toEqual([]);
    expect(t.observed).toEqual([{ refused: 'invalid_events' }]);
  });

  it("lands a merged customer's record on its survivor, owned by the survivor's owner", async () => {
    const t = setUp({
      customers: new Map([
        ['c-merged', { owner_id: 7, merged_customer_id: 'c-survivor' }],
        ['c-survivor', { owner_id: 9, merged_customer_id: null }],
      ]),
    });
    await t.batches.ingest(t.caller, [behaviour('b-1', 'c-merged')]);
    expect((t.written[0] as WritePlan).behaviourRows).toMatchObject([{ customer_id: 'c-survivor', svc_user_id: '9' }]);
  });

  it('takes a Customer item whose owner is an active member, and refuses one whose owner left the project', async () => {
    const t = setUp({
      members: new Map([
        [7, 0],
        [8, 1],
      ]),
    });
    const customer = (id: string, owner: number) => ({
      event_type: 'create',
      domainType: 'Customer',
      domainId: id,
      body: { name: id, svcUserId: owner },
    });
    await t.batches.ingest(t.caller, [customer('c-a', 7), behaviour('b-1', 'c-a')]);
    expect(t.written[0]).toMatchObject({
      customers: [{ index: 0, id: 'c-a', ownerId: 7 }],
      behaviourRows: [{ customer_id: 'c-a', svc_user_id: '7' }],
    });
    const err = await refusal(t.batches.ingest(t.caller, [customer('c-b', 8)]));
    expect(err.extra?.errors).toEqual([{ index: 0, msg: 'svcUserId must be an active member of the project' }]);
  });
});
