// lanes: sqlite postgres
import fs from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../helpers/fixtures.ts';
import { type TestServer, useTestServer } from '../helpers/harness.ts';
import { type ProbeAnswer, injectStreaming } from '../helpers/openapi.ts';
import { fixture, multipart, settled, upload } from '../helpers/files.ts';

/**
 * Walks docs/permissions.md: every row of the matrix is an endpoint probed as each role, and the
 * answer must be what the cell says. The document cannot drift from the code.
 */
// SMTP_URL: campaigns may be made (the test server runs no sender, so nothing is mailed).
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: 'smtp://127.0.0.1:9' });
const ROLES = ['Master', 'Admin', 'Sales', 'Non-member'] as const;
type RoleName = (typeof ROLES)[number];

interface World {
  server: TestServer;
  client: TestClient;
  appId: string;
  users: Record<RoleName, TestUser>;
  /** A fresh active user who is not yet in the project. */
  newUser(): Promise<TestUser>;
  /** A fresh member of the project with the given role. */
  newMember(role: 'Sales' | 'Admin'): Promise<TestUser>;
  /** A new customer owned by `owner` (default: a fresh Sales member). */
  customerOf(owner?: TestUser): Promise<{ id: string; owner: TestUser }>;
  /** A new group of `owner`. */
  groupOf(owner: TestUser): Promise<string>;
  /** A new webhook of the project (registered by the Master). */
  webhook(): Promise<string>;
  /** Stores history records through the ingestion API with the project secret. */
  ingest(batch: unknown[]): Promise<void>;
  /** A rendered file uploaded by `owner` (default: a fresh Sales member). */
  fileOf(owner?: TestUser): Promise<string>;
  /** A new (redirect) link made by `owner` through the API (default: a fresh Sales member). */
  linkOf(owner?: TestUser): Promise<string>;
}

type Probe = (w: World, caller: TestUser, role: RoleName) => Promise<LightMyRequestResponse | ProbeAnswer>;

let fieldProbes = 0;
/** A customer with an e-mail address, owned by `owner` (default: a fresh Sales member). */
async function mailableCustomerOf(w: World, owner?: TestUser): Promise<string> {
  const o = owner ?? (await w.newMember('Sales'));
  const res = await w.server.api.post(
    `/api/v1.7/app/${w.appId}/member/${o.id}/customers`,
    { name: 'Probe reader', email: `probe${Math.random().toString(36).slice(2)}@example.com` },
    { token: o.token },
  );
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.id as string;
}

/** A campaign (not sent: the test server runs no sender) made by `owner` (default: a fresh Sales member). */
async function campaignOf(w: World, owner?: TestUser): Promise<string> {
  const o = owner ?? (await w.newMember('Sales'));
  const res = await w.server.api.post(
    `/api/v1.7/app/${w.appId}/posts`,
    { title: 'Probe', html: '<p>Hi {{name}}</p>', customer_ids: await mailableCustomerOf(w, o) },
    { token: o.token },
  );
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.postId as string;
}

/** A data room made by `owner` (default: a fresh Sales member). */
async function roomOf(w: World, owner?: TestUser): Promise<string> {
  const o = owner ?? (await w.newMember('Sales'));
  const res = await w.server.api.post(`/api/v1.7/app/${w.appId}/rooms`, { name: 'Probe room' }, { token: o.token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.id as string;
}

/** A new task's body, due in a day. */
const taskBody = (customerId: string) => ({
  customer_id: customerId,
  title: 'Probe',
  due_at: new Date(Date.now() + 86_400_000).toISOString(),
});

/** A note its owner (a fresh Sales member) wrote on their customer. */
async function ownersNote(w: World): Promise<{ id: string; noteId: string }> {
  const c = await w.customerOf();
  const res = await w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${c.id}/notes`, { content: 'Owner' }, { token: c.owner.token });
  expect(res.json().status, res.body).toBe(1);
  return { id: c.id, noteId: res.json().data.id as string };
}

/** A task its owner (a fresh Sales member) made on their customer. */
async function ownersTask(w: World): Promise<string> {
  const c = await w.customerOf();
  const res = await w.server.api.post(`/api/v1.7/app/${w.appId}/tasks`, taskBody(c.id), { token: c.owner.token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.id as string;
}

const sequenceBody = { name: 'Probe', steps: [{ type: 'task', title: 'Probe' }] };
const playbookBody = { name: 'Probe', trigger: { kind: 'form_submitted' }, actions: [{ type: 'create_task', title: 'Probe' }] };

/** A sequence a fresh Sales member made. */
async function ownersSequence(w: World): Promise<string> {
  const o = await w.newMember('Sales');
  const res = await w.server.api.post(`/api/v1.7/app/${w.appId}/sequences`, sequenceBody, { token: o.token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.id as string;
}

const campaignBody = async (w: World, customerId: string) => ({ title: 'Probe', html: '<p>x</p>', customer_ids: customerId });

/** Starts an import of a one-row CSV for `member`, as `caller`. */
function importAs(w: World, caller: TestUser, member: number) {
  const body = multipart({ filename: 'probe.csv', bytes: Buffer.from('name\r\nProbe import\r\n') });
  return w.server.api.post(`/api/v1.7/app/${w.appId}/member/${member}/customer-imports`, body.payload, {
    token: caller.token,
    headers: { 'content-type': body.contentType },
  });
}

let invitations = 0;
/** A new Sales invitation of the project, made by its Master. */
async function invitationOf(w: World): Promise<{ id: string; url: string }> {
  invitations += 1;
  const res = await w.server.api.post(
    `/api/v1.7/app/${w.appId}/invitations`,
    { email: `invited.${invitations}@example.com` },
    { token: w.users.Master.token },
  );
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as { id: string; url: string };
}

/** One probe per matrix row; the key is the row's first cell without backticks. */
/** A notification channel of the project, made by its Master. */
async function channelOf(w: World): Promise<string> {
  const res = await w.server.api.post(
    `/api/v1.7/app/${w.appId}/notification-channels`,
    { kind: 'webhook', url: 'http://127.0.0.1:9/probe' },
    { token: w.users.Master.token },
  );
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.id as string;
}

/** A notification of a fresh Sales member (the Master mentions them in a note on their customer). */
async function notificationOf(w: World): Promise<string> {
  const { id, owner } = await w.customerOf();
  await w.server.services.alerts.evaluator.pass();
  const note = await w.server.api.post(
    `/api/v1.7/app/${w.appId}/customer/${id}/notes`,
    { content: `Probe @[you](member:${owner.id})` },
    { token: w.users.Master.token },
  );
  expect(note.json().status, note.body).toBe(1);
  await w.server.services.alerts.evaluator.pass();
  const inbox = await w.server.api.get('/api/v1.7/notifications', { token: owner.token });
  return inbox.json().data[0].id as string;
}

const probes: Record<string, Probe> = {
  'POST /api/v1.7/apps': (w, u) => w.server.api.post('/api/v1.7/apps', { name: 'Probe' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}': (w, u) => w.server.api.post(`/api/v1.7/app/${w.appId}`, { name: 'Renamed' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/secret-rotations': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/secret-rotations`, {}, { token: u.token }),
  'GET /api/v1.7/my-apps': (w, u) => w.server.api.get('/api/v1.7/my-apps', { token: u.token }),
  'POST /api/v1.7/app/{app-id}/members (role Sales)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/members`, { svc_user_id: (await w.newUser()).id, role: 'Sales' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/members (role Admin)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/members`, { svc_user_id: (await w.newUser()).id, role: 'Admin' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/members': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/members`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/invitations (role Sales)': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/invitations`, { email: `probe.${u.id}@example.com`, role: 'Sales' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/invitations (role Admin)': (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/invitations`,
      { email: `probe.admin.${u.id}@example.com`, role: 'Admin' },
      { token: u.token },
    ),
  'GET /api/v1.7/app/{app-id}/invitations': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/invitations`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/invitations/{id}/resend (a Sales invitation)': async (w, u) => {
    const id = (await invitationOf(w)).id;
    return w.server.api.post(`/api/v1.7/app/${w.appId}/invitations/${id}/resend`, {}, { token: u.token });
  },
  'DELETE /api/v1.7/app/{app-id}/invitations/{id} (a Sales invitation)': async (w, u) => {
    const id = (await invitationOf(w)).id;
    return w.server.api.delete(`/api/v1.7/app/${w.appId}/invitations/${id}`, { token: u.token });
  },
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customer-imports (as themselves)': (w, u) => importAs(w, u, u.id),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customer-imports (for another member)': async (w, u) =>
    importAs(w, u, (await w.newMember('Sales')).id),
  "GET /api/v1.7/app/{app-id}/member/{svc-user-id}/customer-import/{id} (another member's import)": async (w, u) => {
    const owner = await w.newMember('Sales');
    const id = (await importAs(w, owner, owner.id)).json().data.id as string;
    return w.server.api.get(`/api/v1.7/app/${w.appId}/member/${u.id}/customer-import/${id}`, { token: u.token });
  },
  'GET /api/v1.7/app/{app-id}/customer-import/template': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customer-import/template`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/customers/export': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customers/export`, { token: u.token }),
  "GET /api/v1.7/app/{app-id}/customers/export (one member's customers)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customers/export`, {
      token: u.token,
      query: { svc_user_id: String((await w.newMember('Sales')).id) },
    }),
  "POST /api/v1.7/app/{app-id}/customers/bulk (another member's customer, to another member)": async (w, u) => {
    const { id } = await w.customerOf();
    const target = await w.newMember('Sales');
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/customers/bulk`,
      { action: 'assign', customerIds: [id], targetSvcUserId: target.id },
      { token: u.token },
    );
  },
  "GET /api/v1.7/app/{app-id}/customers/bulk/{bulk-id} (another member's bulk action)": async (w, u) => {
    const owner = await w.newMember('Sales');
    const { id } = await w.customerOf(owner);
    const started = await w.server.api.post(
      `/api/v1.7/app/${w.appId}/customers/bulk`,
      { action: 'export', customerIds: [id] },
      { token: owner.token },
    );
    const bulkId = (started.json() as { data: { id: string } }).data.id;
    return w.server.api.get(`/api/v1.7/app/${w.appId}/customers/bulk/${bulkId}`, { token: u.token });
  },
  "GET /api/v1.7/app/{app-id}/member/{svc-user-id}/customer-imports (another member's imports)": async (w, u) => {
    const owner = await w.newMember('Sales');
    return w.server.api.get(`/api/v1.7/app/${w.appId}/member/${owner.id}/customer-imports`, { token: u.token });
  },
  'POST /api/v1.7/app/{app-id}/customer-import/preview': (w, u) => {
    const body = multipart({ filename: 'probe.csv', bytes: Buffer.from('name\r\nProbe preview\r\n') });
    return w.server.api.post(`/api/v1.7/app/${w.appId}/customer-import/preview`, body.payload, {
      token: u.token,
      headers: { 'content-type': body.contentType },
    });
  },
  'GET /api/v1.7/app/{app-id}/audit-log': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/audit-log`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (a Sales member)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${(await w.newMember('Sales')).id}`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (an Admin)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${(await w.newMember('Admin')).id}`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (the creator)': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${w.users.Master.id}`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/metadata/customer': (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/metadata/customer`,
      { name: `probe${++fieldProbes}`, label: 'Probe', type: 'text' },
      { token: u.token },
    ),
  'PUT /api/v1.7/app/{app-id}/metadata/customer/{name}': (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/metadata/customer/grade`, { label: 'Grade' }, { token: u.token }),
  'DELETE /api/v1.7/app/{app-id}/metadata/customer/{name}': async (w, u) => {
    const name = `gone${++fieldProbes}`;
    await w.server.api.post(
      `/api/v1.7/app/${w.appId}/metadata/customer`,
      { name, label: 'Gone', type: 'text' },
      { token: w.users.Master.token },
    );
    return w.server.api.delete(`/api/v1.7/app/${w.appId}/metadata/customer/${name}`, { token: u.token });
  },
  'GET /api/v1.7/metadata/customer': (w, u) =>
    w.server.api.get('/api/v1.7/metadata/customer', { token: u.token, query: { app_id: w.appId } }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customer/merge (their own customers)': async (w, u, role) => {
    const owner = role === 'Non-member' ? undefined : u;
    const main = await w.customerOf(owner);
    const other = await w.customerOf(owner ?? main.owner);
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/member/${u.id}/customer/merge`,
      { main_customer_id: main.id, merge_user_ids: other.id },
      { token: u.token },
    );
  },
  "POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customer/merge (another member's customers)": async (w, u) => {
    const main = await w.customerOf();
    const other = await w.customerOf(main.owner);
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/member/${u.id}/customer/merge`,
      { main_customer_id: main.id, merge_user_ids: other.id },
      { token: u.token },
    );
  },
  'GET /api/v1.7/app/{app-id}/member/{svc-user-id}/customer/duplicates (as themselves)': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/member/${u.id}/customer/duplicates`, { token: u.token }),
  "POST /api/v1.7/app/{app-id}/customer/{customer-id}/erase (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${(await w.customerOf()).id}/erase`, undefined, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customers (as themselves)': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${u.id}/customers`, { name: 'Self' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id}/customers (for another member)': async (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/member/${u.id}/customers`,
      { name: 'Other', svcUserId: String((await w.newMember('Sales')).id) },
      { token: u.token },
    ),
  'GET /api/v1.7/customer/{customer-id}/detail (their own customer)': async (w, u, role) => {
    const c = await w.customerOf(role === 'Non-member' ? undefined : u);
    return w.server.api.get(`/api/v1.7/customer/${c.id}/detail`, { token: u.token });
  },
  "GET /api/v1.7/customer/{customer-id}/detail (another member's customer)": async (w, u) =>
    w.server.api.get(`/api/v1.7/customer/${(await w.customerOf()).id}/detail`, { token: u.token }),
  "PUT /api/v1.7/app/{app-id}/member/{svc-user-id}/customer/{customer-id} (another member's customer)": async (w, u) =>
    w.server.api.put(
      `/api/v1.7/app/${w.appId}/member/${u.id}/customer/${(await w.customerOf()).id}`,
      { title: 'Edited' },
      { token: u.token },
    ),
  "DELETE /api/v1.7/app/{app-id}/member/{svc-user-id}/customer/{customer-id} (another member's customer)": async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/member/${u.id}/customer/${(await w.customerOf()).id}`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/member/all/customers': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/member/all/customers`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/member/{svc-user-id}/customers (another member)': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/member/${(await w.customerOf()).owner.id}/customers`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/customer/appSearch': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customer/appSearch`, { token: u.token, query: { condition: '13800000000' } }),
  'GET /api/v1.7/app/{app-id}/scoring': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/scoring`, { token: u.token }),
  'PUT /api/v1.7/app/{app-id}/scoring': (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/scoring`, { weights: { form: 15 } }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/hot-leads': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/hot-leads`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/hot-leads?svc_user_id= (another member)': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/hot-leads`, {
      token: u.token,
      query: { svc_user_id: (await w.customerOf()).owner.id },
    }),
  "POST /api/v1.7/app/{app-id}/customer/batch-app-member-transfers (another member's customer)": async (w, u, role) => {
    const c = await w.customerOf();
    // A Sales member tries to take it for themselves (giving it to someone else is refused before that).
    const target = role === 'Sales' ? u : await w.newMember('Sales');
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: c.id, srouceGroupId: '', srouceSvcUserId: String(c.owner.id) }]),
        target_svc_userid: target.id,
      },
      { token: u.token, form: true },
    );
  },
  'POST /api/v1.7/app/{app-id}/customer/batch-app-member-transfers (their own customer, to another member)': async (w, u, role) => {
    const c = await w.customerOf(role === 'Non-member' ? undefined : u);
    const target = await w.newMember('Sales');
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: c.id, srouceGroupId: '', srouceSvcUserId: String(c.owner.id) }]),
        target_svc_userid: target.id,
      },
      { token: u.token, form: true },
    );
  },
  "POST /api/v1.7/app/{app-id}/customer/group-transfers (another member's groups)": async (w, u) => {
    const owner = await w.newMember('Sales');
    const [g1, g2] = [await w.groupOf(owner), await w.groupOf(owner)];
    const c = await w.server.api.post(
      `/api/v1.7/app/${w.appId}/member/${owner.id}/customers`,
      { name: 'G', group_id: g1 },
      { token: owner.token },
    );
    return w.server.api.post(
      `/api/v1.7/app/${w.appId}/customer/group-transfers`,
      { source_group_id: g1, target_group_id: g2, customer_ids: c.json().data.id },
      { token: u.token, form: true },
    );
  },
  'GET /api/v1.7/app/{app-id}/customer-groups': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/customer-groups`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/customer-groups?svc_user_id= (another member)': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customer-groups`, {
      token: u.token,
      query: { svc_user_id: (await w.newMember('Sales')).id },
    }),
  'GET /api/v1.7/calls?app_id=': (w, u) => w.server.api.get('/api/v1.7/calls', { token: u.token, query: { app_id: w.appId } }),
  'GET /api/v1.7/calls?app_id=&svc_user_id= (another member)': async (w, u) =>
    w.server.api.get('/api/v1.7/calls', { token: u.token, query: { app_id: w.appId, svc_user_id: (await w.newMember('Sales')).id } }),
  'GET /api/v1.7/app/{app-id}/links': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/links`, { token: u.token }),
  'GET /api/v1.7/link/{link-id}/view-logs (a link another member created)': async (w, u) => {
    const creator = await w.newMember('Sales');
    const id = `link-${Math.random().toString(36).slice(2)}`;
    await w.ingest([
      {
        event_type: 'create',
        domainType: 'Link',
        domainId: id,
        body: { name: 'Probe link', type: 2, website: 'https://example.com', creatorId: String(creator.id) },
      },
    ]);
    return w.server.api.get(`/api/v1.7/link/${id}/view-logs`, { token: u.token });
  },
  'GET /api/v1.7/posts?app_id=': (w, u) => w.server.api.get('/api/v1.7/posts', { token: u.token, query: { app_id: w.appId } }),
  "GET /api/v1.7/customer/{customer-id}/overview (another member's customer)": async (w, u) =>
    w.server.api.get(`/api/v1.7/customer/${(await w.customerOf()).id}/overview`, { token: u.token }),
  "GET /api/v1.7/app/{app-id}/member/customer/{customer-id}/behaviour (another member's customer)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/member/customer/${(await w.customerOf()).id}/behaviour`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/events (with a bearer token instead of the secret)': (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/events`,
      [
        {
          event_type: 'create',
          domainType: 'Post',
          domainId: `post-${Math.random().toString(36).slice(2)}`,
          body: { title: 'Probe', ownerId: String(u.id), sendTime: '2026-01-01 10:00:00' },
        },
      ],
      { token: u.token },
    ),
  'POST /api/v1.7/app/{app-id}/notification-channels': (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/notification-channels`,
      { kind: 'webhook', url: 'http://127.0.0.1:9/probe' },
      { token: u.token },
    ),
  'GET /api/v1.7/app/{app-id}/notification-channels': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/notification-channels`, { token: u.token }),
  'PUT /api/v1.7/app/{app-id}/notification-channels/{channel-id}': async (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/notification-channels/${await channelOf(w)}`, { name: 'Probe' }, { token: u.token }),
  'DELETE /api/v1.7/app/{app-id}/notification-channels/{channel-id}': async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/notification-channels/${await channelOf(w)}`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/notification-channels/{channel-id}/test': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/notification-channels/${await channelOf(w)}/test`, {}, { token: u.token }),
  'GET /api/v1.7/user/notification-settings': (w, u) => w.server.api.get('/api/v1.7/user/notification-settings', { token: u.token }),
  'PUT /api/v1.7/user/notification-settings': (w, u) =>
    w.server.api.put('/api/v1.7/user/notification-settings', { signals: 'mention,task_due' }, { token: u.token }),
  "PUT /api/v1.7/user/notification-settings (a project's choice)": (w, u) =>
    w.server.api.put('/api/v1.7/user/notification-settings', { projects: [{ app_id: w.appId, scope: 'all' }] }, { token: u.token }),
  'GET /api/v1.7/notifications': (w, u) => w.server.api.get('/api/v1.7/notifications', { token: u.token }),
  'GET /api/v1.7/notifications/unread-count': (w, u) => w.server.api.get('/api/v1.7/notifications/unread-count', { token: u.token }),
  'POST /api/v1.7/notifications/read': (w, u) => w.server.api.post('/api/v1.7/notifications/read', {}, { token: u.token }),
  "POST /api/v1.7/notifications/{notification-id}/read (another member's notification)": async (w, u) =>
    w.server.api.post(`/api/v1.7/notifications/${await notificationOf(w)}/read`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/webhooks': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/webhooks`, { url: 'http://127.0.0.1:9/probe' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/webhooks': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/webhooks`, { token: u.token }),
  'DELETE /api/v1.7/app/{app-id}/webhooks/{id}': async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/webhooks/${await w.webhook()}`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/webhooks/{id}/deliveries': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/webhooks/${await w.webhook()}/deliveries`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/webhooks/{id}/replay': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/webhooks/${await w.webhook()}/replay`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/webhooks/{id}/test': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/webhooks/${await w.webhook()}/test`, {}, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/events': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/events`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/live': (w, u) =>
    injectStreaming(w.server.app, { method: 'GET', url: `/api/v1.7/app/${w.appId}/live`, headers: { authorization: `Bearer ${u.token}` } }),
  'POST /api/v1.7/app/{app-id}/customer-groups (for themselves)': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/customer-groups`, { name: 'Mine' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/files': (w, u) => upload(w.server, w.appId, u.token, { filename: 'photo.png', bytes: fixture('photo.png') }),
  'GET /api/v1.7/app/{app-id}/files': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/files`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/file/{file-id}': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/file/${await w.fileOf()}`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/file/{file-id}/page/{n}': async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/file/${await w.fileOf()}/page/1`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/file/{file-id} (their own file)': async (w, u, role) => {
    const id = await w.fileOf(role === 'Non-member' ? undefined : u);
    return upload(w.server, w.appId, u.token, { filename: 'photo.png', bytes: fixture('photo.png') }, { fileId: id });
  },
  'POST /api/v1.7/app/{app-id}/links': (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/links`,
      { name: 'Probe link', type: 3, website: 'https://example.com/' },
      { token: u.token },
    ),
  'PUT /api/v1.7/app/{app-id}/link/{link-id} (their own link)': async (w, u, role) =>
    w.server.api.put(
      `/api/v1.7/app/${w.appId}/link/${await w.linkOf(role === 'Non-member' ? undefined : u)}`,
      { remark: 'x' },
      { token: u.token },
    ),
  "PUT /api/v1.7/app/{app-id}/link/{link-id} (another member's link)": async (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/link/${await w.linkOf()}`, { remark: 'x' }, { token: u.token }),
  'DELETE /api/v1.7/app/{app-id}/link/{link-id} (their own link)': async (w, u, role) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/link/${await w.linkOf(role === 'Non-member' ? undefined : u)}`, { token: u.token }),
  "DELETE /api/v1.7/app/{app-id}/link/{link-id} (another member's link)": async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/link/${await w.linkOf()}`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/link/{link-id}/agreements (their own link)': async (w, u, role) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/link/${await w.linkOf(role === 'Non-member' ? undefined : u)}/agreements`, {
      token: u.token,
    }),
  "GET /api/v1.7/app/{app-id}/link/{link-id}/agreements (another member's link)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/link/${await w.linkOf()}/agreements`, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/link/{link-id}/analytics (their own link)': async (w, u, role) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/link/${await w.linkOf(role === 'Non-member' ? undefined : u)}/analytics`, {
      token: u.token,
    }),
  "GET /api/v1.7/app/{app-id}/link/{link-id}/analytics (another member's link)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/link/${await w.linkOf()}/analytics`, { token: u.token }),
  "POST /api/v1.7/app/{app-id}/links (a room link of another member's room)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/links`, { name: 'Probe', type: 4, room_id: await roomOf(w) }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/rooms': (w, u) => w.server.api.post(`/api/v1.7/app/${w.appId}/rooms`, { name: 'Probe' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/rooms': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/rooms`, { token: u.token }),
  "GET /api/v1.7/app/{app-id}/room/{room-id} (another member's room)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/room/${await roomOf(w)}`, { token: u.token }),
  'PUT /api/v1.7/app/{app-id}/room/{room-id} (their own room)': async (w, u, role) =>
    w.server.api.put(
      `/api/v1.7/app/${w.appId}/room/${await roomOf(w, role === 'Non-member' ? undefined : u)}`,
      { name: 'Renamed' },
      { token: u.token },
    ),
  "PUT /api/v1.7/app/{app-id}/room/{room-id} (another member's room)": async (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/room/${await roomOf(w)}`, { name: 'Renamed' }, { token: u.token }),
  "DELETE /api/v1.7/app/{app-id}/room/{room-id} (another member's room)": async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/room/${await roomOf(w)}`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/customer/{customer-id}/notes (their own customer)': async (w, u, role) => {
    const c = await w.customerOf(role === 'Non-member' ? undefined : u);
    return w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${c.id}/notes`, { content: 'Probe' }, { token: u.token });
  },
  "POST /api/v1.7/app/{app-id}/customer/{customer-id}/notes (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${(await w.customerOf()).id}/notes`, { content: 'Probe' }, { token: u.token }),
  "GET /api/v1.7/app/{app-id}/customer/{customer-id}/notes (another member's customer)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/customer/${(await w.customerOf()).id}/notes`, { token: u.token }),
  "PUT /api/v1.7/app/{app-id}/customer/{customer-id}/note/{note-id} (a note the customer's owner wrote)": async (w, u) => {
    const { id, noteId } = await ownersNote(w);
    return w.server.api.put(`/api/v1.7/app/${w.appId}/customer/${id}/note/${noteId}`, { content: 'Edited' }, { token: u.token });
  },
  "DELETE /api/v1.7/app/{app-id}/customer/{customer-id}/note/{note-id} (a note the customer's owner wrote)": async (w, u) => {
    const { id, noteId } = await ownersNote(w);
    return w.server.api.delete(`/api/v1.7/app/${w.appId}/customer/${id}/note/${noteId}`, { token: u.token });
  },
  "POST /api/v1.7/app/{app-id}/customer/{customer-id}/calls (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${(await w.customerOf()).id}/calls`, { duration: 60 }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/tasks (their own customer)': async (w, u, role) => {
    const c = await w.customerOf(role === 'Non-member' ? undefined : u);
    return w.server.api.post(`/api/v1.7/app/${w.appId}/tasks`, taskBody(c.id), { token: u.token });
  },
  "POST /api/v1.7/app/{app-id}/tasks (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/tasks`, taskBody((await w.customerOf()).id), { token: u.token }),
  'GET /api/v1.7/app/{app-id}/tasks': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/tasks`, { token: u.token }),
  "PUT /api/v1.7/app/{app-id}/task/{task-id} (a task on another member's customer)": async (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/task/${await ownersTask(w)}`, { status: 'done' }, { token: u.token }),
  "DELETE /api/v1.7/app/{app-id}/task/{task-id} (a task on another member's customer)": async (w, u) =>
    w.server.api.delete(`/api/v1.7/app/${w.appId}/task/${await ownersTask(w)}`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/playbooks': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/playbooks`, playbookBody, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/playbooks': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/playbooks`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/playbook-dry-runs': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/playbook-dry-runs`, playbookBody, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/sequence-settings': (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/sequence-settings`, { token: u.token }),
  'PUT /api/v1.7/app/{app-id}/sequence-settings': (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/sequence-settings`, { dailyCap: 150 }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/sequences': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/sequences`, sequenceBody, { token: u.token }),
  "PUT /api/v1.7/app/{app-id}/sequence/{sequence-id} (another member's sequence)": async (w, u) =>
    w.server.api.put(`/api/v1.7/app/${w.appId}/sequence/${await ownersSequence(w)}`, sequenceBody, { token: u.token }),
  "POST /api/v1.7/app/{app-id}/sequence/{sequence-id}/enrollments (another member's customer)": async (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/sequence/${await ownersSequence(w)}/enrollments`,
      { customer_ids: [(await w.customerOf()).id] },
      { token: u.token },
    ),
  "POST /api/v1.7/app/{app-id}/customer/{customer-id}/replied (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/customer/${(await w.customerOf()).id}/replied`, undefined, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/posts (their own customer)': async (w, u, role) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/posts`,
      await campaignBody(w, await mailableCustomerOf(w, role === 'Non-member' ? undefined : u)),
      { token: u.token },
    ),
  "POST /api/v1.7/app/{app-id}/posts (another member's customer)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/posts`, await campaignBody(w, await mailableCustomerOf(w)), { token: u.token }),
  'POST /api/v1.7/app/{app-id}/post-previews (their own customer)': async (w, u, role) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/post-previews`,
      { title: 'Probe', html: '<p>{{name}}</p>', customer_id: await mailableCustomerOf(w, role === 'Non-member' ? undefined : u) },
      { token: u.token },
    ),
  "POST /api/v1.7/app/{app-id}/post-previews (another member's customer)": async (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/post-previews`,
      { title: 'Probe', html: '<p>{{name}}</p>', customer_id: await mailableCustomerOf(w) },
      { token: u.token },
    ),
  "POST /api/v1.7/app/{app-id}/post-tests (another member's customer; the caller has no e-mail address)": async (w, u) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/post-tests`,
      { title: 'Probe', html: '<p>{{name}}</p>', customer_id: await mailableCustomerOf(w) },
      { token: u.token },
    ),
  "GET /api/v1.7/app/{app-id}/post/{post-id} (another member's campaign)": async (w, u) =>
    w.server.api.get(`/api/v1.7/app/${w.appId}/post/${await campaignOf(w)}`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/post/{post-id}/pause (their own campaign)': async (w, u, role) =>
    w.server.api.post(
      `/api/v1.7/app/${w.appId}/post/${await campaignOf(w, role === 'Non-member' ? undefined : u)}/pause`,
      {},
      { token: u.token },
    ),
  "POST /api/v1.7/app/{app-id}/post/{post-id}/cancel (another member's campaign)": async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/post/${await campaignOf(w)}/cancel`, {}, { token: u.token }),
  "POST /api/v1.7/app/{app-id}/file/{file-id} (another member's file)": async (w, u) =>
    upload(w.server, w.appId, u.token, { filename: 'photo.png', bytes: fixture('photo.png') }, { fileId: await w.fileOf() }),
};

interface Row {
  endpoint: string;
  cells: Record<RoleName, string>;
}

function readMatrix(): Row[] {
  const doc = fs.readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8');
  const block = doc.split('<!-- matrix:start -->')[1]?.split('<!-- matrix:end -->')[0] ?? '';
  const lines = block.split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((line) => {
    const cols = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const endpoint = (cols[0] ?? '').replace(/`/g, '');
    const cells = Object.fromEntries(ROLES.map((r, i) => [r, cols[i + 1] ?? ''])) as Record<RoleName, string>;
    return { endpoint, cells };
  });
}

/** The answer's class in the matrix's vocabulary. */
function outcome(res: LightMyRequestResponse | ProbeAnswer): string {
  // A page image, or an open event stream: a success that is not JSON.
  if (
    res.statusCode === 200 &&
    /^(image\/|text\/event-stream|text\/csv|application\/vnd\.openxml)/.test(String(res.headers['content-type']))
  )
    return '200';
  const body = res.json() as { status?: number; code?: string; error?: string } | unknown[];
  if (res.statusCode === 403 && !Array.isArray(body)) return `403 ${body.error}`;
  if (res.statusCode !== 200) return `HTTP ${res.statusCode}`;
  if (Array.isArray(body) || body.status === 1) return '200';
  return String(body.code);
}

/** The expected class: the cell's leading token(s), before any parenthesised note. */
function expected(cell: string): string {
  const head = cell.replace(/\(.*\)/, '').trim();
  if (head.startsWith('200')) return '200';
  return head;
}

const rows = readMatrix();
let world: World;

beforeAll(async () => {
  const server = t.server;
  const client = await createClient(server);
  const [m, a, s, n] = (await Promise.all(ROLES.map(() => activeUser(server, client)))) as [TestUser, TestUser, TestUser, TestUser];
  const appId = (await server.api.post('/api/v1.7/apps', { name: 'Matrix' }, { token: m.token })).json().data.appId as string;
  await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: a.id, role: 'Admin' }, { token: m.token });
  await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: s.id, role: 'Sales' }, { token: m.token });
  // Read at each use: the secret-rotation probe replaces it.
  const currentSecret = async () => {
    const mine = (await server.api.get('/api/v1.7/my-apps', { token: m.token })).json().data as { id: string; secret: string }[];
    return mine.find((a) => a.id === appId)?.secret ?? '';
  };
  world = {
    server,
    client,
    appId,
    users: { Master: m, Admin: a, Sales: s, 'Non-member': n },
    newUser: () => activeUser(server, client),
    async newMember(role) {
      const u = await activeUser(server, client);
      const res = await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: u.id, role }, { token: m.token });
      expect(res.json().status).toBe(1);
      return u;
    },
    async customerOf(owner) {
      const o = owner ?? (await this.newMember('Sales'));
      const res = await server.api.post(`/api/v1.7/app/${appId}/member/${o.id}/customers`, { name: 'Probe customer' }, { token: o.token });
      expect(res.json().status, res.body).toBe(1);
      return { id: res.json().data.id as string, owner: o };
    },
    async webhook() {
      const res = await server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url: 'http://127.0.0.1:9/probe' }, { token: m.token });
      expect(res.json().status, res.body).toBe(1);
      return res.json().data.id as string;
    },
    async ingest(batch) {
      const res = await server.api.post(`/api/v1.7/app/${appId}/events`, batch, { headers: { 'x-app-secret': await currentSecret() } });
      expect(res.json().status, res.body).toBe(1);
    },
    async fileOf(owner) {
      const o = owner ?? (await this.newMember('Sales'));
      const res = await upload(server, appId, o.token, { filename: 'photo.png', bytes: fixture('photo.png') });
      expect(res.json().status, res.body).toBe(1);
      const file = await settled(server, appId, o.token, res.json().data.id as string);
      expect(file.status).toBe('ready');
      return file.id;
    },
    async linkOf(owner) {
      const o = owner ?? (await this.newMember('Sales'));
      const res = await server.api.post(
        `/api/v1.7/app/${appId}/links`,
        { name: 'Probe link', type: 3, website: 'https://example.com/' },
        { token: o.token },
      );
      expect(res.json().status, res.body).toBe(1);
      return res.json().data.id as string;
    },
    async groupOf(owner) {
      const res = await server.api.post(`/api/v1.7/app/${appId}/customer-groups`, { name: 'Probe group' }, { token: owner.token });
      expect(res.json().status, res.body).toBe(1);
      return res.json().data.id as string;
    },
  };
});

describe('docs/permissions.md matrix', () => {
  it('has a probe for every row and a row for every probe', () => {
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.endpoint).sort()).toEqual(Object.keys(probes).sort());
  });

  for (const row of rows) {
    for (const role of ROLES) {
      it(`${row.endpoint} as ${role} → ${row.cells[role]}`, async () => {
        const probe = probes[row.endpoint];
        if (!probe) throw new Error(`no probe for ${row.endpoint}`);
        const res = await probe(world, world.users[role], role);
        expect(outcome(res), res.body).toBe(expected(row.cells[role]));
      });
    }
  }

  it('every project endpoint refuses a request without a token with 403 access_denied', async () => {
    for (const path of ['/api/v1.7/my-apps', `/api/v1.7/app/${world.appId}`, `/api/v1.7/app/${world.appId}/members`]) {
      const res = await world.server.api.get(path);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('access_denied');
    }
  });
});
