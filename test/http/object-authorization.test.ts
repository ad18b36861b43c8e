// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/harness.ts';
import { injectStreaming, operations, succeeded, undocumented } from '../helpers/openapi.ts';
import { DAY, type HistoryProject, ago, event, historyProject, ingest } from '../helpers/histories.ts';
import { fixture, multipart, settled, upload } from '../helpers/files.ts';

/**
 * Object-level authorization (OWASP API1) across projects: every route of the OpenAPI document is
 * called with a second project's Master credentials (its token, and its secret where a route takes
 * one) and the first project's ids in path parameters, query parameters and body fields. Nothing of
 * the first project may come back, nothing of it may change, and every answer is a documented one:
 * never a 5xx. A route added later is probed without changing this file; a path parameter this file
 * has no id for fails the test, so that it gets one.
 */
// SMTP_URL: campaigns may be made (the test server runs no sender, so nothing is mailed).
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: 'smtp://127.0.0.1:9' });

let a: HistoryProject;
let b: HistoryProject;
const ids = {
  customer: '',
  group: '',
  link: 'victim-link',
  viewLog: 'victim-view',
  webhook: '',
  event: '',
  file: '',
  field: '',
  post: '',
  import: '',
  invitation: '',
  bulk: '',
  note: '',
  task: '',
  channel: '',
  notification: '',
  sequence: '',
  enrollment: '',
  playbook: '',
  room: '',
};

/** Texts only project A's data contains: none may appear in an answer to project B's Master. */
const markers: string[] = [];
const unique = (label: string) => `${label}${Math.random().toString(36).slice(2, 8)}`;

/** Which request a variant makes: the project in path and `app_id`, and the acting member in the path. */
interface Variant {
  name: string;
  app: () => string;
  actor: () => number;
}
const VARIANTS: Variant[] = [
  { name: "A's project and member", app: () => a.appId, actor: () => a.sales.id },
  { name: "B's project, A's member", app: () => b.appId, actor: () => a.sales.id },
  { name: "B's project and member, A's objects", app: () => b.appId, actor: () => b.master.id },
];

/** Path parameters: the project and acting member of the variant, A's objects for the rest. */
function pathValue(name: string, path: string, v: Variant): string {
  switch (name) {
    case 'appId':
      return v.app();
    case 'svcUserId':
      return String(v.actor());
    case 'customerId':
      return ids.customer;
    case 'linkId':
      return ids.link;
    case 'fileId':
      return ids.file;
    case 'postId':
      return ids.post;
    case 'importId':
      return ids.import;
    case 'bulkId':
      return ids.bulk;
    case 'noteId':
      return ids.note;
    case 'taskId':
      return ids.task;
    case 'channelId':
      return ids.channel;
    case 'notificationId':
      return ids.notification;
    case 'sequenceId':
      return ids.sequence;
    case 'enrollmentId':
      return ids.enrollment;
    case 'playbookId':
      return ids.playbook;
    case 'roomId':
      return ids.room;
    case 'version':
      return '1';
    case 'n':
      return '1';
    case 'clientId':
      // OAuth clients are the server's, not a project's: B's Master (no administrator) is refused whatever the id.
      return 'rc_probe';
    case 'id':
      if (path.includes('/webhooks/')) return ids.webhook;
      if (path.includes('/invitations/')) return ids.invitation;
      break;
    case 'token':
      // An invitation's link is its token, which only those it was given to hold: B's Master has none of A's.
      if (path.includes('/invitation/')) return 'b-guesses-a-token-it-was-never-given-0123456';
      // The inbound mail webhook's address is its secret: B has none of A's.
      if (path.includes('/inbound-mail/')) return 'b-guesses-an-inbound-token-never-given-01';
      break;
    case 'name':
      if (path.includes('/metadata/customer/')) return ids.field;
      break;
  }
  throw new Error(`no id of project A for path parameter ${name} of ${path}: add one to this test`);
}

/** Query and body fields that carry object ids get A's; a few others get a harmless value; the rest are left out. */
function fieldValue(name: string, v: Variant): unknown {
  if (/^app_?id$/i.test(name)) return v.app();
  // People: the variant's acting member, so that with B's own member only the object checks stand in the way.
  if (/^(svc_?user_?id|svcUserId|target_svc_userid|owner_id|promoter_?id|promoterId)$/i.test(name)) return String(v.actor());
  if (name === 'user_id') return String(a.master.id);
  if (/^(group_?id|groupId|source_group_id|target_group_id)$/.test(name)) return ids.group;
  if (name === 'sequenceId') return ids.sequence;
  if (name === 'playbookId') return ids.playbook;
  if (name === 'room_id') return ids.room;
  if (name === 'customer_ids' || name === 'customer_id') return ids.customer;
  if (name === 'assignee_id') return String(v.actor());
  if (name === 'content' || name === 'note') return 'Probe';
  if (name === 'due_at') return '2030-01-01 10:00:00';
  if (name === 'datas')
    return JSON.stringify([{ customerId: ids.customer, srouceSvcUserId: String(a.sales.id), srouceGroupId: ids.group }]);
  if (name === 'event_ids') return ids.event;
  if (name === 'app_secret') return b.secret;
  // Searches for A's contact data must find nothing outside A.
  if (name === 'condition') return markers[2];
  if (name === 'name' || name === 'title') return 'Probe';
  if (name === 'html') return '<p>Probe</p>';
  if (name === 'url') return 'http://127.0.0.1:9/probe';
  return undefined;
}

/** The ingestion body: records of B naming A's customer, link and view log. */
const ingestBody = () => [
  event('BehaviourLog', unique('probe-b-'), { customerId: ids.customer, action: 'send_message', when: ago(DAY) }),
  event('LinkViewLog', unique('probe-v-'), { linkId: ids.link, viewTime: ago(DAY) }),
  event('Clue', unique('probe-c-'), { linkViewLogId: ids.viewLog, name: 'Probe' }),
];

/** What project A looks like to its own Master: compared before and after the probes. */
async function stateOfA(): Promise<unknown[]> {
  const token = a.master.token;
  const reads = [
    `/api/v1.7/app/${a.appId}`,
    `/api/v1.7/app/${a.appId}/members?count=100`,
    `/api/v1.7/app/${a.appId}/member/all/customers?count=100`,
    `/api/v1.7/customer/${ids.customer}/detail`,
    `/api/v1.7/app/${a.appId}/customer-groups`,
    `/api/v1.7/app/${a.appId}/links?count=100`,
    `/api/v1.7/app/${a.appId}/webhooks`,
    `/api/v1.7/app/${a.appId}/files`,
    `/api/v1.7/calls?app_id=${a.appId}`,
    `/api/v1.7/posts?app_id=${a.appId}`,
    `/api/v1.7/app/${a.appId}/post/${ids.post}`,
    `/api/v1.7/app/${a.appId}/member/customer/${ids.customer}/behaviour?count=100`,
    `/api/v1.7/app/${a.appId}/customer/${ids.customer}/notes?count=100`,
    `/api/v1.7/app/${a.appId}/tasks?count=100`,
    `/api/v1.7/app/${a.appId}/sequences?count=100`,
    `/api/v1.7/app/${a.appId}/customer/${ids.customer}/enrollments`,
    `/api/v1.7/app/${a.appId}/sequence-settings`,
    `/api/v1.7/app/${a.appId}/playbooks`,
    `/api/v1.7/app/${a.appId}/rooms`,
    `/api/v1.7/app/${a.appId}/notification-channels`,
    `/api/v1.7/notifications?count=100`,
    `/api/v1.7/user/notification-settings`,
    `/api/v1.7/my-apps`,
    `/api/v1.7/metadata/customer?app_id=${a.appId}`,
  ];
  const out: unknown[] = [];
  for (const url of reads) {
    const body = (await t.server.api.get(url, { token })).json() as unknown;
    // Presence changes with every request and is no part of the project.
    out.push(JSON.parse(JSON.stringify(body, (k, val: unknown) => (k === 'onlineStatus' ? undefined : val))));
  }
  return out;
}

beforeAll(async () => {
  [a, b] = await Promise.all([historyProject(t.server), historyProject(t.server)]);
  const projectName = unique('VictimProject');
  const customerName = unique('VictimCustomer');
  const phone = `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const email = `${unique('victim')}@example.org`;
  const groupName = unique('VictimGroup');
  const linkName = unique('VictimLink');
  const salesEmail = `${unique('victim.sales')}@example.org`;
  markers.push(projectName, customerName, phone, email, groupName, linkName, salesEmail, a.secret, a.sales.username, a.master.username);

  const api = t.server.api;
  expect((await api.post(`/api/v1.7/app/${a.appId}`, { name: projectName }, { token: a.master.token })).json().status).toBe(1);
  expect((await api.post('/api/v1.7/user/update', { email: salesEmail }, { token: a.sales.token })).json().status).toBe(1);
  expect((await api.post(`/api/v1.7/user/membership/${a.appId}/accept`, {}, { token: a.sales.token })).json().status).toBe(1);
  const group = await api.post(`/api/v1.7/app/${a.appId}/customer-groups`, { name: groupName }, { token: a.sales.token });
  ids.group = group.json().data.id as string;
  const customer = await api.post(
    `/api/v1.7/app/${a.appId}/member/${a.sales.id}/customers`,
    { name: customerName, phone, email, group_id: ids.group },
    { token: a.sales.token },
  );
  expect(customer.json().status).toBe(1);
  ids.customer = customer.json().data.id as string;
  const stored = await ingest(t.server, a, [
    event('Link', ids.link, { name: linkName, type: 2, creatorId: a.sales.id, isDirectional: 1, customerId: ids.customer }),
    event('LinkViewLog', ids.viewLog, { linkId: ids.link, viewTime: ago(DAY), viewerName: customerName }),
    event('Clue', 'victim-clue', { linkId: ids.link, linkViewLogId: ids.viewLog, name: customerName, phone, email }),
    event('Call', 'victim-call', {
      fromUserType: 2,
      fromUserId: String(a.sales.id),
      toUserType: 1,
      toUserId: ids.customer,
      callStatus: 1,
      callTime: ago(DAY),
      name: customerName,
      phoneNum: phone,
    }),
    event('Post', 'victim-post', { ownerId: a.sales.id, sendTime: ago(DAY), title: linkName }),
    event('BehaviourLog', 'victim-behaviour', { customerId: ids.customer, action: 'send_message', when: ago(DAY), customerName }),
  ]);
  expect(stored.json()).toMatchObject({ status: 1, data: { accepted: 6 } });
  ids.field = 'victimField';
  const field = await api.post(
    `/api/v1.7/app/${a.appId}/metadata/customer`,
    { name: ids.field, label: 'Victim', type: 'text' },
    { token: a.master.token },
  );
  expect(field.json().status).toBe(1);
  const hook = await api.post(`/api/v1.7/app/${a.appId}/webhooks`, { url: 'http://127.0.0.1:9/victim-hook' }, { token: a.master.token });
  ids.webhook = hook.json().data.id as string;
  markers.push(hook.json().data.secret as string, 'victim-hook');
  const invitedEmail = `${unique('victim.invited')}@example.org`;
  const invitation = await api.post(`/api/v1.7/app/${a.appId}/invitations`, { email: invitedEmail }, { token: a.master.token });
  expect(invitation.json().status, invitation.body).toBe(1);
  ids.invitation = invitation.json().data.id as string;
  markers.push(invitedEmail, invitation.json().data.url.split('/').pop() as string);
  // B adds A's sales person by platform user id, as the interface allows: B's member list then
  // shows them, pending, without their phone number and e-mail.
  expect((await api.post(`/api/v1.7/app/${b.appId}/members`, { svc_user_id: a.sales.id }, { token: b.master.token })).json().status).toBe(
    1,
  );
  const fileName = unique('VictimFile');
  markers.push(fileName);
  const file = await upload(t.server, a.appId, a.sales.token, { filename: `${fileName}.pdf`, bytes: fixture('deck.pdf') });
  ids.file = file.json().data.id as string;
  expect(await settled(t.server, a.appId, a.sales.token, ids.file)).toMatchObject({ status: 'ready' });
  const campaign = await api.post(
    `/api/v1.7/app/${a.appId}/posts`,
    { title: linkName, html: '<p>Hi {{name}}</p>', customer_ids: ids.customer },
    { token: a.sales.token },
  );
  expect(campaign.json().status, campaign.body).toBe(1);
  ids.post = campaign.json().data.postId as string;
  // A customer import of A's, with a failed row (its problems.csv carries A's cells).
  const importBody = multipart({ filename: 'victim.csv', bytes: Buffer.from(`name,phone\r\n${customerName},not-a-phone\r\n`) });
  const imported = await api.post(`/api/v1.7/app/${a.appId}/member/${a.sales.id}/customer-imports`, importBody.payload, {
    token: a.sales.token,
    headers: { 'content-type': importBody.contentType },
  });
  expect(imported.json().status, imported.body).toBe(1);
  ids.import = imported.json().data.id as string;
  // A bulk export of A's customer (its file carries A's cells).
  const bulk = await api.post(
    `/api/v1.7/app/${a.appId}/customers/bulk`,
    { action: 'export', customerIds: [ids.customer] },
    { token: a.master.token },
  );
  expect(bulk.json().status, bulk.body).toBe(1);
  ids.bulk = bulk.json().data.id as string;
  // A note and a task on A's customer (what the team wrote about it).
  const noteText = unique('VictimNote');
  const taskTitle = unique('VictimTask');
  markers.push(noteText, taskTitle);
  const note = await api.post(`/api/v1.7/app/${a.appId}/customer/${ids.customer}/notes`, { content: noteText }, { token: a.sales.token });
  expect(note.json().status, note.body).toBe(1);
  ids.note = note.json().data.id as string;
  const task = await api.post(
    `/api/v1.7/app/${a.appId}/tasks`,
    { customer_id: ids.customer, title: taskTitle, due_at: '2030-01-01 10:00:00' },
    { token: a.sales.token },
  );
  expect(task.json().status, task.body).toBe(1);
  ids.task = task.json().data.id as string;
  // A notification channel of A's (its URL and generated secret are A's), and a notification to A's Master (a mention).
  const channel = await api.post(
    `/api/v1.7/app/${a.appId}/notification-channels`,
    { kind: 'webhook', url: 'http://127.0.0.1:9/victim-channel' },
    { token: a.master.token },
  );
  expect(channel.json().status, channel.body).toBe(1);
  ids.channel = channel.json().data.id as string;
  markers.push(channel.json().data.secret as string, 'victim-channel');
  await t.server.services.alerts.evaluator.pass();
  const mention = await api.post(
    `/api/v1.7/app/${a.appId}/customer/${ids.customer}/notes`,
    { content: `${noteText} @[Boss](member:${a.master.id})` },
    { token: a.sales.token },
  );
  expect(mention.json().status, mention.body).toBe(1);
  await t.server.services.alerts.evaluator.pass();
  const inbox = await api.get('/api/v1.7/notifications', { token: a.master.token });
  ids.notification = inbox.json().data[0].id as string;
  // A sequence of A's with A's customer enrolled (its steps carry A's words).
  const sequenceName = unique('VictimSequence');
  markers.push(sequenceName);
  const sequence = await api.post(
    `/api/v1.7/app/${a.appId}/sequences`,
    { name: sequenceName, steps: [{ type: 'task', title: sequenceName }] },
    { token: a.sales.token },
  );
  expect(sequence.json().status, sequence.body).toBe(1);
  ids.sequence = sequence.json().data.id as string;
  const enrolled = await api.post(
    `/api/v1.7/app/${a.appId}/sequence/${ids.sequence}/enrollments`,
    { customer_ids: [ids.customer] },
    { token: a.sales.token },
  );
  expect(enrolled.json().status, enrolled.body).toBe(1);
  for (let i = 0; i < 200 && ids.enrollment === ''; i += 1) {
    const mine = await api.get(`/api/v1.7/app/${a.appId}/customer/${ids.customer}/enrollments`, { token: a.sales.token });
    ids.enrollment = (mine.json().data[0]?.id as string | undefined) ?? '';
    if (ids.enrollment === '') await new Promise((r) => setTimeout(r, 50));
  }
  expect(ids.enrollment).not.toBe('');
  // A playbook of A's (its name and task title are A's words).
  const playbookName = unique('VictimPlaybook');
  markers.push(playbookName);
  const playbook = await api.post(
    `/api/v1.7/app/${a.appId}/playbooks`,
    { name: playbookName, trigger: { kind: 'form_submitted' }, actions: [{ type: 'create_task', title: playbookName }] },
    { token: a.master.token },
  );
  expect(playbook.json().status, playbook.body).toBe(1);
  ids.playbook = playbook.json().data.id as string;
  const room = await api.post(
    `/api/v1.7/app/${a.appId}/rooms`,
    { name: unique('VictimRoom'), items: [{ type: 'folder', name: 'Victim folder', items: [{ type: 'file', file_id: ids.file }] }] },
    { token: a.sales.token },
  );
  expect(room.json().status, room.body).toBe(1);
  ids.room = room.json().data.id as string;
  markers.push(room.json().data.name as string);
  const feed = await api.get(`/api/v1.7/app/${a.appId}/events`, { token: a.master.token });
  ids.event = feed.json().data.events[0].id as string;
});

describe("another project's Master, with the first project's ids", () => {
  it('gets nothing of the first project from any route, changes nothing of it, and only documented answers', async () => {
    const before = await stateOfA();
    const ops = await operations(t.server);
    expect(ops.length).toBeGreaterThan(30);
    const problems: string[] = [];
    const seen = new Set<string>();
    let probes = 0;

    for (const op of ops) {
      for (const v of VARIANTS) {
        const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValue(name, op.path, v)));
        const query: Record<string, string> = {};
        for (const name of op.query) {
          const value = fieldValue(name, v);
          if (value !== undefined) query[name] = String(value);
        }
        let body: unknown;
        if (op.method === 'POST' || op.method === 'PUT') {
          if (op.path.endsWith('/events')) body = ingestBody();
          else body = Object.fromEntries(op.body.map((n) => [n, fieldValue(n, v)]).filter(([, val]) => val !== undefined));
        }
        const key = `${op.method} ${url} ${JSON.stringify(query)} ${JSON.stringify(body)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        probes += 1;

        const headers: Record<string, string> = op.path.endsWith('/events') && op.method === 'POST' ? { 'x-app-secret': b.secret } : {};
        const opts = { token: b.master.token, query, headers };
        const res = op.streaming
          ? await injectStreaming(t.server.app, {
              method: 'GET',
              url,
              query,
              headers: { ...headers, authorization: `Bearer ${b.master.token}` },
            })
          : op.method === 'GET'
            ? await t.server.api.get(url, opts)
            : op.method === 'DELETE'
              ? await t.server.api.delete(url, opts)
              : op.method === 'PUT'
                ? await t.server.api.put(url, body, opts)
                : await t.server.api.post(url, body, opts);
        const where = `${op.method} ${op.path} (${v.name})`;

        if (res.statusCode >= 500) problems.push(`${where}: HTTP ${res.statusCode}`);
        const leaked = markers.filter((m) => res.body.includes(m));
        if (leaked.length > 0) problems.push(`${where}: answer contains project A's ${leaked.join(', ')}`);

        const wrong = undocumented(res);
        if (wrong !== undefined) problems.push(`${where}: ${wrong}`);
        const success = succeeded(res);
        // Naming project A (in the path or app_id) or one of its objects in the path never succeeds.
        const namesA =
          url.includes(a.appId) ||
          query.app_id === a.appId ||
          /\{(customerId|linkId|fileId|postId|importId|id|channelId|notificationId|sequenceId|enrollmentId|playbookId)\}/.test(op.path);
        if (success && namesA && !op.path.startsWith('/svcuser/')) problems.push(`${where}: succeeded: ${res.body.slice(0, 200)}`);
      }
    }

    expect(problems).toEqual([]);
    expect(probes).toBeGreaterThanOrEqual(ops.length);
    expect(await stateOfA()).toEqual(before);
  });
});
