// lanes: sqlite postgres
/**
 * isNew and newCount (docs/interface.md §9) as the owner sees them in lists and search, through ingestion,
 * the owner's detail view and a transfer. newCount is the customer's behaviour record count (its
 * action totals) less what it was at the owner's last detail view (ADR 0012).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { ago, customerEvent, event, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();

describe('newCount', () => {
  it('counts records arriving after the owner last opened the detail; a transfer starts over', async () => {
    const q = await historyProject(t.server);
    const sms = (id: string) => event('BehaviourLog', id, { customerId: 'nc-1', action: 'send_message', when: ago(60_000) });
    const listed = async (token: string, who: string) => {
      const res = await t.server.api.get(`/api/v1.7/app/${q.appId}/member/${who}/customers`, { token });
      return (res.json() as { data: { id: string; isNew: number; newCount: number }[] }).data.find((c) => c.id === 'nc-1');
    };
    const searched = async (token: string) => {
      const res = await t.server.api.get(`/api/v1.7/app/${q.appId}/customer/appSearch`, { token, query: { condition: '13612345678' } });
      return (res.json() as { data: { id: string; newCount: number }[] }).data.find((c) => c.id === 'nc-1');
    };

    expect((await ingest(t.server, q, [customerEvent('nc-1', { phone: '13612345678', svcUserId: q.sales.id })])).json().status).toBe(1);
    expect(await listed(q.sales.token, String(q.sales.id))).toMatchObject({ isNew: 1, newCount: 1 }); // its create record
    expect((await ingest(t.server, q, [sms('nc-s1'), sms('nc-s2'), sms('nc-s3')])).json().status).toBe(1);
    expect(await listed(q.sales.token, String(q.sales.id))).toMatchObject({ isNew: 1, newCount: 4 });
    expect(await searched(q.sales.token)).toMatchObject({ newCount: 4 });

    // A manager's look is not the owner's: nothing changes.
    await t.server.api.get('/api/v1.7/customer/nc-1/detail', { token: q.master.token });
    expect(await listed(q.sales.token, String(q.sales.id))).toMatchObject({ isNew: 1, newCount: 4 });

    await t.server.api.get('/api/v1.7/customer/nc-1/detail', { token: q.sales.token });
    expect(await listed(q.sales.token, String(q.sales.id))).toMatchObject({ isNew: 0, newCount: 0 });
    // A resend of stored records adds nothing; new ones count.
    expect((await ingest(t.server, q, [sms('nc-s3'), sms('nc-s4'), sms('nc-s5')])).json().data).toEqual({ accepted: 2, duplicates: 1 });
    expect(await listed(q.sales.token, String(q.sales.id))).toMatchObject({ isNew: 0, newCount: 2 });

    const moved = await t.server.api.post(
      `/api/v1.7/app/${q.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: 'nc-1', srouceSvcUserId: String(q.sales.id), srouceGroupId: '' }]),
        target_svc_userid: q.sales2.id,
      },
      { token: q.master.token, form: true },
    );
    expect(moved.json()).toMatchObject({ status: 1 });
    // Every record is new to the new owner.
    expect(await listed(q.sales2.token, String(q.sales2.id))).toMatchObject({ isNew: 1, newCount: 6 });
    await t.server.api.get('/api/v1.7/customer/nc-1/detail', { token: q.sales2.token });
    expect(await listed(q.sales2.token, String(q.sales2.id))).toMatchObject({ isNew: 0, newCount: 0 });
  });
});
