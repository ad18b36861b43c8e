// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let p: HistoryProject;

interface Entry {
  svcUserId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  detail: Record<string, unknown> | null;
  createdAt: string;
}

async function auditLog(token: string): Promise<Entry[]> {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token, query: { count: 100 } });
  expect(res.json().status).toBe(1);
  return res.json().data as Entry[];
}

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('audit log', () => {
  it('records who changed members, customers, the project and webhooks, newest first, for Master and Admin only', async () => {
    const api = t.server.api;
    const master = p.master.token;
    // Members: historyProject added admin, sales and sales2; the outsider is added, accepts, and is removed.
    expect((await api.post(`/api/v1.7/app/${p.appId}/members`, { svc_user_id: p.outsider.id }, { token: master })).json().status).toBe(1);
    expect((await api.post(`/api/v1.7/user/membership/${p.appId}/accept`, {}, { token: p.outsider.token })).json().status).toBe(1);
    expect((await api.post(`/api/v1.7/app/${p.appId}/member/${p.outsider.id}`, {}, { token: master })).json().status).toBe(1);
    // A customer moved from one Sales member to the other.
    const created = await api.post(`/api/v1.7/app/${p.appId}/member/${p.sales.id}/customers`, { name: 'Moved' }, { token: p.sales.token });
    const customerId = created.json().data.id as string;
    const moved = await api.post(
      `/api/v1.7/app/${p.appId}/customer/batch-app-member-transfers`,
      { datas: JSON.stringify([{ customerId }]), target_svc_userid: p.sales2.id },
      { token: p.admin.token },
    );
    expect(moved.json().status).toBe(1);
    // The project renamed, a webhook added and removed.
    expect((await api.post(`/api/v1.7/app/${p.appId}`, { name: 'Renamed' }, { token: master })).json().status).toBe(1);
    const hook = await api.post(`/api/v1.7/app/${p.appId}/webhooks`, { url: 'http://127.0.0.1:9/hook' }, { token: master });
    const hookId = hook.json().data.id as string;
    expect((await api.delete(`/api/v1.7/app/${p.appId}/webhooks/${hookId}`, { token: master })).json().status).toBe(1);

    const entries = await auditLog(p.admin.token);
    const summary = entries.map((e) => [e.action, e.svcUserId, e.targetId]);
    expect(summary.slice(0, 7)).toEqual([
      ['webhook.remove', String(p.master.id), hookId],
      ['webhook.create', String(p.master.id), hookId],
      ['project.edit', String(p.master.id), p.appId],
      ['customer.transfer_owner', String(p.admin.id), customerId],
      ['member.remove', String(p.master.id), String(p.outsider.id)],
      ['member.accept', String(p.outsider.id), String(p.outsider.id)],
      ['member.add', String(p.master.id), String(p.outsider.id)],
    ]);
    expect(entries[3]?.detail).toEqual({ from: String(p.sales.id), to: String(p.sales2.id) });
    // Of a webhook's URL only the origin is kept (a receiver's path can be its credential).
    expect(entries[1]?.detail).toEqual({ url: 'http://127.0.0.1:9' });
    expect(entries[2]?.detail).toEqual({ name: 'Renamed' });
    // The members historyProject added are there too, with their roles.
    expect(entries.filter((e) => e.action === 'member.add').map((e) => e.detail?.role)).toEqual(
      expect.arrayContaining(['Admin', 'Sales', 'Sales']),
    );
    expect(entries.every((e) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(e.createdAt))).toBe(true);

    // Sales members and outsiders read nothing.
    const sales = await api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.sales.token });
    expect(sales.statusCode).toBe(403);
    const outsider = await api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.outsider.token });
    expect(outsider.statusCode).toBeGreaterThanOrEqual(200);
    expect(JSON.stringify(outsider.json())).not.toContain('member.add');
  });

  it('records an owner changed by an edit, a customer created for someone else, and a deletion', async () => {
    const api = t.server.api;
    const created = await api.post(`/api/v1.7/app/${p.appId}/member/${p.sales.id}/customers`, { name: 'Given' }, { token: p.master.token });
    const id = created.json().data.id as string;
    const edited = await api.put(
      `/api/v1.7/app/${p.appId}/member/${p.sales.id}/customer/${id}`,
      { svc_user_id: p.sales2.id },
      { token: p.master.token },
    );
    expect(edited.json()).toMatchObject({ status: 1, data: { svcUserId: String(p.sales2.id) } });
    expect(
      (await api.delete(`/api/v1.7/app/${p.appId}/member/${p.sales2.id}/customer/${id}`, { token: p.master.token })).json().status,
    ).toBe(1);
    const entries = (await auditLog(p.master.token)).slice(0, 3);
    expect(entries.map((e) => [e.action, e.targetId, e.detail])).toEqual([
      ['customer.delete', id, null],
      ['customer.transfer_owner', id, { from: String(p.sales.id), to: String(p.sales2.id) }],
      ['customer.transfer_owner', id, { from: null, to: String(p.sales.id) }],
    ]);
  });

  it('writes nothing when the change is refused', async () => {
    const before = (await auditLog(p.master.token)).length;
    const refused = await t.server.api.post(`/api/v1.7/app/${p.appId}`, { name: '   ' }, { token: p.master.token });
    expect(refused.json()).toMatchObject({ status: 0, code: 'name_invalid' });
    const sales = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer/batch-app-member-transfers`,
      { datas: JSON.stringify([{ customerId: 'nobody' }]), target_svc_userid: p.sales2.id },
      { token: p.master.token },
    );
    expect(sales.json().status).toBe(0);
    expect((await auditLog(p.master.token)).length).toBe(before);
  });
});
