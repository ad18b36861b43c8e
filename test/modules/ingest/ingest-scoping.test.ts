// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, type HistoryProject, addCustomers, ago, customerEvent, event, historyProject, ingest } from '../../helpers/histories.ts';

/**
 * Ids in ingested bodies that name another project's records or people are refused: a producer of
 * one project cannot attach its records to another project's customers, links, view logs, clues,
 * calls, groups or members.
 */
const t = useTestServer();
let p: HistoryProject;
let q: HistoryProject;
let qGroup: string;

beforeAll(async () => {
  [p, q] = await Promise.all([historyProject(t.server), historyProject(t.server)]);
  await addCustomers(t.server, p, [{ id: 'p-cust', owner: p.sales.id }]);
  await addCustomers(t.server, q, [{ id: 'q-cust', owner: q.sales.id }]);
  const stored = await ingest(t.server, q, [
    event('Link', 'q-link', { name: 'Theirs', type: 2, creatorId: q.sales.id }),
    event('LinkViewLog', 'q-view', { linkId: 'q-link', viewTime: ago(DAY) }),
    event('Clue', 'q-clue', { linkId: 'q-link', linkViewLogId: 'q-view', name: 'Lead' }),
    event('Call', 'q-call', {
      fromUserType: 2,
      fromUserId: String(q.sales.id),
      toUserType: 1,
      toUserId: 'q-cust',
      callStatus: 1,
      callTime: ago(DAY),
    }),
  ]);
  expect(stored.json()).toMatchObject({ status: 1, data: { accepted: 4 } });
  const group = await t.server.api.post(`/api/v1.7/app/${q.appId}/customer-groups`, { name: 'Q group' }, { token: q.sales.token });
  qGroup = group.json().data.id as string;
});

describe("ingested ids of another project's records", () => {
  it('are refused, each item by index, and nothing of the batch is stored', async () => {
    const bad = [
      event('BehaviourLog', 'x-0', { customerId: 'q-cust', action: 'send_message', when: ago(DAY) }),
      event('BehaviourLog', 'x-1', {
        customerId: 'p-cust',
        action: 'call',
        when: ago(DAY),
        content: JSON.stringify({ record_id: 'q-call' }),
      }),
      event('BehaviourLog', 'x-2', {
        customerId: 'p-cust',
        action: 'link_spread',
        when: ago(DAY),
        content: JSON.stringify({ linkViewLogId: 'q-view' }),
      }),
      event('BehaviourLog', 'x-3', {
        customerId: 'p-cust',
        action: 'chat_record',
        userType: 1,
        when: ago(DAY),
        content: JSON.stringify({ chat_content: 'hi', customer_id: 'q-cust' }),
      }),
      event('BehaviourLog', 'x-4', { customerId: 'p-cust', action: 'send_message', when: ago(DAY), svcUserId: String(q.sales.id) }),
      event('LinkViewLog', 'x-5', { linkId: 'q-link', viewTime: ago(DAY) }),
      event('Clue', 'x-6', { linkViewLogId: 'q-view', name: 'Stolen lead' }),
      event('Link', 'x-7', { name: 'Mine', type: 2, creatorId: q.sales.id }),
      event('Link', 'x-8', { name: 'Directed', type: 2, creatorId: p.sales.id, isDirectional: 1, customerId: 'q-cust' }),
      event('Link', 'x-9', { name: 'Clued', type: 2, creatorId: p.sales.id, clueId: 'q-clue' }),
      event('Post', 'x-10', { ownerId: q.master.id, sendTime: ago(DAY) }),
      event('Call', 'x-11', {
        fromUserType: 2,
        fromUserId: String(q.sales.id),
        toUserType: 1,
        toUserId: 'p-cust',
        callStatus: 1,
        callTime: ago(DAY),
      }),
      event('Call', 'x-12', {
        fromUserType: 1,
        fromUserId: 'q-cust',
        toUserType: 2,
        toUserId: String(p.sales.id),
        callStatus: 0,
        callTime: ago(DAY),
      }),
      customerEvent('x-13', { svcUserId: q.sales.id }),
    ];
    const res = await ingest(t.server, p, bad);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 0, code: 'invalid_events' });
    const errors = body.errors as { index: number; msg: string }[];
    expect(errors.map((e) => e.index)).toEqual(bad.map((_, i) => i));
    const msg = (i: number) => errors.find((e) => e.index === i)?.msg;
    expect(msg(1)).toBe('content.record_id q-call is a record of another project');
    expect(msg(2)).toBe('content.linkViewLogId q-view is a record of another project');
    expect(msg(3)).toBe('content.customer_id q-cust is a record of another project');
    expect(msg(4)).toBe(`svcUserId ${q.sales.id} is not a member of this project`);
    expect(msg(6)).toBe('linkViewLogId q-view is a record of another project');
    expect(msg(7)).toBe(`creatorId ${q.sales.id} is not a member of this project`);
    expect(msg(9)).toBe('clueId q-clue is a record of another project');
    expect(msg(10)).toBe(`ownerId ${q.master.id} is not a member of this project`);
    expect(msg(11)).toBe(`fromUserId ${q.sales.id} is not a member of this project`);
    for (const i of [0, 8, 12]) expect(msg(i)).toContain('q-cust not found in this project');
    expect(msg(5)).toContain('q-link not found in this project');

    // Nothing of p's batch is stored, and q's records are untouched.
    const links = await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token: p.master.token });
    expect(links.json().data).toEqual([]);
    const theirs = await t.server.api.get(`/api/v1.7/link/q-link/view-logs`, { token: q.master.token });
    expect(theirs.json().data.map((v: { id: string }) => v.id)).toEqual(['q-view']);
  });

  it("refuses a customer in another project's group", async () => {
    const res = await ingest(t.server, p, [customerEvent('x-group', { svcUserId: p.sales.id, groupId: qGroup })]);
    expect(res.json()).toMatchObject({
      status: 0,
      code: 'invalid_events',
      errors: [{ index: 0, msg: expect.stringContaining('groupId') }],
    });
  });

  it('keeps ids no project has, and people who were members before', async () => {
    const former = p.sales2;
    const removed = await t.server.api.post(`/api/v1.7/app/${p.appId}/member/${former.id}`, {}, { token: p.master.token });
    expect(removed.json().status).toBe(1);
    const res = await ingest(t.server, p, [
      event('Clue', 'ok-clue', { linkViewLogId: 'not-yet-arrived', name: 'Lead' }),
      event('BehaviourLog', 'ok-call', {
        customerId: 'p-cust',
        action: 'call',
        when: ago(DAY),
        content: JSON.stringify({ record_id: 'later' }),
      }),
      event('Post', 'ok-post', { ownerId: former.id, sendTime: ago(DAY) }),
      event('Link', 'ok-link', { name: 'Own', type: 2, creatorId: p.sales.id }),
      event('LinkViewLog', 'ok-view', { linkId: 'ok-link', viewTime: ago(DAY) }),
    ]);
    expect(res.json()).toEqual({ status: 1, data: { accepted: 5, duplicates: 0 } });
  });
});
