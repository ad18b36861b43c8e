// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, HOUR, ago, event, feedEvents, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

const base = () => `/api/v1.7/app/${p.appId}`;
type Customer = Record<string, unknown> & { id: string };
const db = () => t.server.ctx.database.db;

async function create(u: TestUser, body: Record<string, unknown>): Promise<Customer> {
  const res = await t.server.api.post(`${base()}/member/${u.id}/customers`, body, { token: u.token, form: true });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as Customer;
}
const erase = (u: TestUser, id: string) => t.server.api.post(`${base()}/customer/${id}/erase`, undefined, { token: u.token });

/** History of every kind that names a customer: behaviour, a call, a directed link, a view with its pages and form, a visitor. */
async function history(customerId: string, tag: string) {
  const res = await ingest(t.server, p, [
    event('BehaviourLog', `${tag}-sms`, { customerId, action: 'send_message', when: ago(HOUR) }),
    event('Call', `${tag}-call`, {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: customerId,
      callStatus: 1,
      callTime: ago(HOUR),
    }),
    event('Link', `${tag}-link`, {
      name: 'Offer',
      type: 2,
      website: 'https://example.com',
      creatorId: p.sales.id,
      isDirectional: 1,
      customerId,
      shareToken: `${tag}-token`,
    }),
  ]);
  expect(res.json().status, res.body).toBe(1);
  const now = Date.now();
  await db()
    .insertInto('link_view_logs')
    .values({
      id: `${tag}-view`,
      app_id: p.appId,
      link_id: `${tag}-link`,
      view_time: now,
      created_at: now,
      customer_id: customerId,
      clue_id: `${tag}-clue`,
    })
    .execute();
  await db()
    .insertInto('link_view_durations')
    .values({ app_id: p.appId, link_view_log_id: `${tag}-view`, position: 0, id: `${tag}-dur`, page_index: '1', duration: '500' })
    .execute();
  await db()
    .insertInto('clues')
    .values({
      id: `${tag}-clue`,
      app_id: p.appId,
      link_view_log_id: `${tag}-view`,
      name: 'Han Meimei',
      phone: '13811112222',
      created_at: now,
    })
    .execute();
  await db()
    .insertInto('visitors')
    .values({ app_id: p.appId, id: `${tag}-visitor`, customer_id: customerId, created_at: now, updated_at: now })
    .execute();
  // The visitor accepted a link's agreement (its address, name, client).
  await db()
    .insertInto('link_agreement_acceptances')
    .values({
      id: `${tag}-accepted`,
      app_id: p.appId,
      link_id: `${tag}-link`,
      version: 1,
      text_hash: 'hash',
      email: `${tag}@example.com`,
      name: tag,
      visitor_id: `${tag}-visitor`,
      accepted_at: now,
      ip: '203.0.113.0',
      user_agent: 'Mozilla/5.0',
    })
    .execute();
  // A custom field's value, a site visitor with a visit and an event, a campaign's recipient row (queued).
  await db()
    .insertInto('customer_field_values')
    .values({ app_id: p.appId, customer_id: customerId, name: 'vip', value: 'Gold', value_lower: 'gold' })
    .execute();
  await db()
    .insertInto('site_visitors')
    .values({ app_id: p.appId, id: `${tag}-site`, customer_id: customerId, verified: 1, via: 'identify', created_at: now, updated_at: now })
    .execute();
  await db()
    .insertInto('site_visits')
    .values({
      app_id: p.appId,
      visitor_id: `${tag}-site`,
      id: `${tag}-visit`,
      started_at: now,
      last_at: now,
      ended_at: null,
      site: 'acme.example',
      referrer: 'https://search.example/?q=han',
      post_id: null,
    })
    .execute();
  await db()
    .insertInto('site_events')
    .values({
      app_id: p.appId,
      id: `${tag}-site-event`,
      visitor_id: `${tag}-site`,
      when_at: now,
      body: '{"action":"access_site"}',
      created_at: now,
    })
    .execute();
  await db()
    .insertInto('campaign_recipients')
    .values({
      id: `${tag}-recipient`,
      app_id: p.appId,
      campaign_id: 'erasure-campaign',
      customer_id: customerId,
      email: 'han@example.com',
      email_norm: 'han@example.com',
      fields: '{"name":"Han Meimei"}',
      state: 'queued',
      opens: 0,
      machine_opens: 0,
      clicks: 0,
      returns: 0,
      created_at: now,
    })
    .execute();
  // A note and a task the team wrote about the customer.
  await db()
    .insertInto('notes')
    .values({
      id: `${tag}-note`,
      app_id: p.appId,
      customer_id: customerId,
      author_id: p.sales.id,
      content: 'Han Meimei',
      mentions: '[]',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db()
    .insertInto('tasks')
    .values({
      id: `${tag}-task`,
      app_id: p.appId,
      customer_id: customerId,
      title: 'Call Han Meimei',
      kind: 'call',
      due_at: now,
      assignee_id: p.sales.id,
      creator_id: p.sales.id,
      status: 'open',
      created_at: now,
      updated_at: now,
    })
    .execute();
  // An alert about the customer: its signal and a member's notification (docs/alerts.md).
  await db()
    .insertInto('alert_signals')
    .values({
      id: `${tag}-signal`,
      app_id: p.appId,
      key: `task_due:${tag}`,
      signal: 'task_due',
      customer_id: customerId,
      subject: null,
      suppressed: 0,
      created_at: now,
    })
    .execute();
  await db()
    .insertInto('notifications')
    .values({
      id: `${tag}-notification`,
      app_id: p.appId,
      user_id: p.sales.id,
      signal_id: `${tag}-signal`,
      signal: 'task_due',
      customer_id: customerId,
      title: 'Task due: Call Han Meimei',
      body: 'About Han Meimei',
      data: '{}',
      inbox: 1,
      mail_status: 'none',
      mail_attempts: 0,
      created_at: now,
    })
    .execute();
  // A playbook's hit and run on the customer (docs/playbooks.md).
  await db()
    .insertInto('playbook_hits')
    .values({ app_id: p.appId, playbook_id: 'erasure-playbook', key: `record:${tag}`, customer_id: customerId, at: now })
    .execute();
  await db()
    .insertInto('playbook_runs')
    .values({
      id: `${tag}-run`,
      app_id: p.appId,
      playbook_id: 'erasure-playbook',
      customer_id: customerId,
      run_key: `erasure-playbook:${customerId}`,
      hit_key: `record:${tag}`,
      event_id: `${tag}-event`,
      recorded_at: now,
      outcome: '[]',
      webhook_status: null,
      webhook_attempts: 0,
      webhook_next_at: null,
      webhook_error: null,
      created_at: now,
    })
    .execute();
}

/** A campaign's recipient row, as erasure leaves it. */
const recipient = (tag: string) =>
  db()
    .selectFrom('campaign_recipients')
    .select(['customer_id', 'email', 'email_norm', 'fields', 'state'])
    .where('app_id', '=', p.appId)
    .where('id', '=', `${tag}-recipient`)
    .executeTakeFirst();

async function remaining(ids: string[]) {
  const n = async (
    table:
      | 'behaviour_logs'
      | 'behaviour_totals'
      | 'behaviour_rollups'
      | 'calls'
      | 'link_view_logs'
      | 'visitors'
      | 'notes'
      | 'tasks'
      | 'alert_signals'
      | 'notifications'
      | 'playbook_hits'
      | 'playbook_runs',
  ) => (await db().selectFrom(table).select('app_id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute()).length;
  const rows = async (table: 'customer_field_values' | 'site_visitors') =>
    (await db().selectFrom(table).select('app_id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute()).length;
  const ofVisitors = async (table: 'site_visits' | 'site_events') =>
    (
      await db()
        .selectFrom(table)
        .select('app_id')
        .where('app_id', '=', p.appId)
        .where('visitor_id', 'in', (q) =>
          q.selectFrom('site_visitors').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids),
        )
        .execute()
    ).length;
  return {
    customer_field_values: await rows('customer_field_values'),
    site_visitors: await rows('site_visitors'),
    site_visits: await ofVisitors('site_visits'),
    site_events: await ofVisitors('site_events'),
    campaign_recipients: (
      await db().selectFrom('campaign_recipients').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute()
    ).length,
    behaviour_logs: await n('behaviour_logs'),
    behaviour_totals: await n('behaviour_totals'),
    behaviour_rollups: await n('behaviour_rollups'),
    calls: await n('calls'),
    link_view_logs: await n('link_view_logs'),
    visitors: await n('visitors'),
    link_agreement_acceptances: (
      await db()
        .selectFrom('link_agreement_acceptances')
        .select('id')
        .where('app_id', '=', p.appId)
        .where('visitor_id', 'in', (q) =>
          q.selectFrom('visitors').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids),
        )
        .execute()
    ).length,
    notes: await n('notes'),
    tasks: await n('tasks'),
    alert_signals: await n('alert_signals'),
    notifications: await n('notifications'),
    playbook_hits: await n('playbook_hits'),
    playbook_runs: await n('playbook_runs'),
    customers: (await db().selectFrom('customers').select('id').where('app_id', '=', p.appId).where('id', 'in', ids).execute()).length,
    links: (await db().selectFrom('links').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute()).length,
  };
}
const NOTHING = {
  customer_field_values: 0,
  site_visitors: 0,
  site_visits: 0,
  site_events: 0,
  campaign_recipients: 0,
  behaviour_logs: 0,
  behaviour_totals: 0,
  behaviour_rollups: 0,
  calls: 0,
  link_view_logs: 0,
  visitors: 0,
  link_agreement_acceptances: 0,
  notes: 0,
  tasks: 0,
  alert_signals: 0,
  notifications: 0,
  playbook_hits: 0,
  playbook_runs: 0,
  customers: 0,
  links: 0,
};

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('erasure', () => {
  it('Master/Admin erase a customer, the customers merged into it and all their history; an audit entry keeps no personal data', async () => {
    const x = await create(p.sales, { name: 'Han Meimei', phone: '13811112222', email: 'han@example.com' });
    const y = await create(p.sales, { name: 'Han M.', phone: '13811112222' });
    const other = await create(p.sales, { name: 'Keep Me', phone: '13899990000' });
    await history(x.id, 'x');
    await history(y.id, 'y');
    await history(other.id, 'o');
    const merged = await t.server.api.post(
      `${base()}/member/${p.sales.id}/customer/merge`,
      { main_customer_id: x.id, merge_user_ids: y.id },
      { token: p.sales.token },
    );
    expect(merged.json().status, merged.body).toBe(1);
    expect(await remaining([x.id, y.id])).not.toEqual(NOTHING);

    // Sales members and outsiders may not; an unknown id is customer_not_found.
    expect((await erase(p.sales, x.id)).statusCode).toBe(403);
    expect((await erase(p.outsider, x.id)).statusCode).toBe(403);
    expect((await erase(p.admin, 'no-such-customer')).json().code).toBe('customer_not_found');

    // A clue reached only through the view that names it (the form of a view whose clue has no view of its own).
    const now = Date.now();
    await db()
      .insertInto('link_view_logs')
      .values({ id: 'x-view2', app_id: p.appId, link_id: 'x-link', view_time: now, created_at: now, customer_id: x.id, clue_id: 'x-form' })
      .execute();
    await db()
      .insertInto('clues')
      .values({ id: 'x-form', app_id: p.appId, link_view_log_id: null, email: 'han@example.com', created_at: now })
      .execute();

    const res = await erase(p.admin, x.id);
    expect(res.json().status, res.body).toBe(1);
    expect(res.json().data).toMatchObject({ id: x.id, appId: p.appId, customerIds: [x.id, y.id] });
    // Every table that names a customer, in the order its owner erases it (children before the rows they hang on).
    const erased = res.json().data.erased as Record<string, number>;
    expect(Object.keys(erased)).toEqual([
      'clues',
      'link_view_durations',
      'link_view_logs',
      'behaviour_logs',
      'behaviour_rollups',
      'behaviour_totals',
      'calls',
      'notes',
      'tasks',
      'alert_signals',
      'sequence_enrollments',
      'playbook_runs',
      'links',
      'link_agreement_acceptances',
      'visitors',
      'site_visits',
      'site_events',
      'site_visitors',
      'campaign_recipients',
      'customer_merges',
      'customer_scores',
      'outbox',
      'customer_field_values',
      'customers',
    ]);
    expect(erased).toMatchObject({
      clues: 3,
      link_view_durations: 2,
      link_view_logs: 3,
      calls: 2,
      notes: 2,
      tasks: 2,
      alert_signals: 2,
      playbook_runs: 2,
      links: 2,
      link_agreement_acceptances: 2,
      visitors: 2,
      site_visits: 2,
      site_events: 2,
      site_visitors: 2,
      campaign_recipients: 2,
      customer_merges: 1,
      customers: 2,
    });
    // The merged customer's field values went to the survivor: erased with it.
    expect(erased.customer_field_values).toBeGreaterThanOrEqual(1);
    expect(erased.behaviour_logs).toBeGreaterThanOrEqual(4);
    expect(await remaining([x.id, y.id])).toEqual(NOTHING);
    for (const id of ['x-clue', 'y-clue', 'x-form']) {
      expect(
        await db().selectFrom('clues').select('id').where('app_id', '=', p.appId).where('id', '=', id).executeTakeFirst(),
      ).toBeUndefined();
    }
    const durations = await db()
      .selectFrom('link_view_durations')
      .select('id')
      .where('app_id', '=', p.appId)
      .where('link_view_log_id', 'in', ['x-view', 'y-view'])
      .execute();
    expect(durations).toEqual([]);
    // The directed links stay, the sales user's material, addressed to no one.
    const link = await db()
      .selectFrom('links')
      .select(['customer_id', 'is_directional'])
      .where('app_id', '=', p.appId)
      .where('id', '=', 'x-link')
      .executeTakeFirst();
    expect(link).toEqual({ customer_id: null, is_directional: 0 });
    // A campaign keeps its figures: the recipient rows stay, without address, merge values or customer;
    // the mail still queued for them is not sent.
    for (const tag of ['x', 'y']) {
      expect(await recipient(tag)).toEqual({ customer_id: '', email: '', email_norm: '', fields: '{}', state: 'cancelled' });
    }
    expect(await recipient('o')).toMatchObject({ email: 'han@example.com', state: 'queued' });
    for (const id of [x.id, y.id]) {
      expect((await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: p.master.token })).json().code).toBe('customer_not_found');
    }
    // The other customer is untouched.
    expect(await remaining([other.id])).toMatchObject({
      customer_field_values: 1,
      site_visitors: 1,
      site_visits: 1,
      site_events: 1,
      campaign_recipients: 1,
      behaviour_logs: 2,
      calls: 1,
      link_view_logs: 1,
      visitors: 1,
      link_agreement_acceptances: 1,
      customers: 1,
      links: 1,
    });

    // The audit entry names ids and counts only; the events tell consumers to forget, without the data.
    const audit = await t.server.api.get(`${base()}/audit-log`, { token: p.master.token, query: { count: 100 } });
    const entry = (audit.json().data as { action: string; targetId: string; detail: unknown }[]).find((e) => e.action === 'customer.erase');
    expect(entry).toMatchObject({ targetId: x.id, detail: { customers: [x.id, y.id] } });
    const feed = await feedEvents(t.server, p.appId, p.master.token);
    const erasedEvents = feed.filter((e) => e.event_type === 'delete' && e.domainType === 'Customer');
    expect(erasedEvents.map((e) => e.body)).toEqual([
      { id: x.id, appId: p.appId, status: 0, erased: true },
      { id: y.id, appId: p.appId, status: 0, erased: true },
    ]);
    const text = JSON.stringify(feed.filter((e) => e.domainType === 'Customer')) + JSON.stringify(audit.json().data);
    for (const personal of ['Han Meimei', '13811112222', 'han@example.com']) expect(text).not.toContain(personal);
  });

  it('erasing a merged customer whose history is still moving leaves the survivor reading its own history only', async () => {
    const survivor = await create(p.sales, { name: 'Stays', phone: '13822223333' });
    const gone = await create(p.sales, { name: 'Goes', phone: '13822223333' });
    await history(gone.id, 'g');
    const merged = await t.server.api.post(
      `${base()}/member/${p.sales.id}/customer/merge`,
      { main_customer_id: survivor.id, merge_user_ids: gone.id },
      { token: p.sales.token },
    );
    expect(merged.json().status, merged.body).toBe(1);
    const pending = () =>
      db().selectFrom('customers').select('merge_pending').where('app_id', '=', p.appId).where('id', '=', survivor.id).executeTakeFirst();
    expect((await pending())?.merge_pending).toBe(1);
    const res = await erase(p.master, gone.id);
    expect(res.json().data).toMatchObject({ customerIds: [gone.id] });
    expect(await remaining([gone.id])).toEqual(NOTHING);
    expect((await pending())?.merge_pending).toBe(0);
    const overview = await t.server.api.get(`/api/v1.7/customer/${survivor.id}/overview`, { token: p.master.token });
    // Its own create record and the merge's record (bookkeeping, not activity); nothing of the erased customer.
    expect(overview.json().data).toMatchObject({ total: 0, smsCount: 0, callCount: 0 });
    const records = await t.server.api.get(`${base()}/member/customer/${survivor.id}/behaviour`, { token: p.master.token });
    expect(
      records
        .json()
        .data.map((r: { action: string }) => r.action)
        .sort(),
    ).toEqual(['create', 'customer_merged']);
  });

  it('a survivor another merge still moves history to keeps reading it until that merge is erased too', async () => {
    const survivor = await create(p.sales, { name: 'Stays too', phone: '13833334444' });
    const first = await create(p.sales, { name: 'Goes first', phone: '13833334444' });
    const second = await create(p.sales, { name: 'Goes second', phone: '13833334444' });
    const merged = await t.server.api.post(
      `${base()}/member/${p.sales.id}/customer/merge`,
      { main_customer_id: survivor.id, merge_user_ids: `${first.id},${second.id}` },
      { token: p.sales.token },
    );
    expect(merged.json().status, merged.body).toBe(1);
    const pending = async () =>
      (
        await db()
          .selectFrom('customers')
          .select('merge_pending')
          .where('app_id', '=', p.appId)
          .where('id', '=', survivor.id)
          .executeTakeFirst()
      )?.merge_pending;
    expect(await pending()).toBe(1);
    expect((await erase(p.master, first.id)).json().data).toMatchObject({ customerIds: [first.id], erased: { customer_merges: 1 } });
    expect(await pending()).toBe(1);
    expect((await erase(p.master, second.id)).json().data).toMatchObject({ customerIds: [second.id], erased: { customer_merges: 1 } });
    expect(await pending()).toBe(0);
  });

  it('the CLI erases by id alone (its service call), and a second erasure finds nothing', async () => {
    const z = await create(p.sales, { name: 'Zed', email: 'zed@example.com' });
    await history(z.id, 'z');
    const result = await t.server.services.erasure.eraseById(z.id);
    expect(result).toMatchObject({ id: z.id, appId: p.appId, customerIds: [z.id] });
    expect(await remaining([z.id])).toEqual(NOTHING);
    await expect(t.server.services.erasure.eraseById(z.id)).rejects.toMatchObject({ code: 'customer_not_found' });
    expect((await erase(p.master, z.id)).json().code).toBe('customer_not_found');
  });
});
