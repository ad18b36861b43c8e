// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, count, createLink, madeLink, renderedFile } from '../../helpers/links.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { madeRoomLink } from '../../helpers/rooms.ts';

/**
 * Knowing who reads a shared link: the e-mail gate's one-time code mailed by the server's sender
 * (a real SMTP server here), its lock after five wrong codes and its minute between codes; the allow
 * and deny lists; the verified tie to the customer of that address; the Link record's fields.
 */
const mailbox = await startMailbox();
const t = useTestServer({ SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, SMTP_FROM: 'Rapport <links@example.com>' });
let p: HistoryProject;
let fileId: string;

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  await addCustomers(t.server, p, [{ id: 'verify-ada', owner: p.sales.id, name: 'Ada Lovelace' }]);
  await t.server.ctx.database.db
    .updateTable('customers')
    .set({ email: 'ada@example.com', email_lower: 'ada@example.com' })
    .where('app_id', '=', p.appId)
    .where('id', '=', 'verify-ada')
    .execute();
});
afterAll(async () => {
  await mailbox.close();
});

const FORM = 'application/x-www-form-urlencoded';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** The code of the newest mail to `to`, once it has arrived. */
async function codeMailedTo(to: string, before: number): Promise<{ code: string; subject: string; text: string }> {
  const inbox = await mailbox.waitFor(before + 1);
  const mail = [...inbox].reverse().find((m) => m.to.some((r) => r.toLowerCase() === to.toLowerCase()));
  if (!mail) throw new Error(`no mail to ${to}`);
  const code = /\b(\d{6})\b/.exec(mail.mail.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no code in ${mail.mail.text}`);
  return { code, subject: mail.mail.subject ?? '', text: mail.mail.text ?? '' };
}

const visitorTie = (visitorId: string) =>
  t.server.ctx.database.db
    .selectFrom('visitors')
    .select(['customer_id', 'verified'])
    .where('app_id', '=', p.appId)
    .where('id', '=', visitorId)
    .executeTakeFirst();

const verifiedLink = (over: Record<string, unknown> = {}) =>
  madeLink(t.server, p.appId, p.sales.token, { name: 'Verified deck', file_id: fileId, email_verify: 1, ...over });

describe('the Link record', () => {
  it('takes email_verify, the lists (canonical, each checked) and the agreement; either turns the e-mail gate on', async () => {
    const plain = (await createLink(t.server, p.appId, p.sales.token, { name: 'Plain', file_id: fileId })).json() as { data: LinkData };
    expect(plain.data).toMatchObject({ emailGate: 0, emailVerify: 0, allowList: [], denyList: [], agreement: null, agreementVersion: 0 });
    const link = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Listed',
      file_id: fileId,
      allow_list: ' Acme.COM, @Example.org; *.Corp.Example\nBob+deals@Partner.com, acme.com',
      deny_list: ['boss@acme.com'],
      agreement: '  Keep this to yourself.  ',
      email_verify: 1,
    });
    expect(link).toMatchObject({
      emailGate: 1,
      emailVerify: 1,
      allowList: ['acme.com', 'example.org', '*.corp.example', 'bob@partner.com'],
      denyList: ['boss@acme.com'],
      agreement: 'Keep this to yourself.',
      agreementVersion: 1,
    });
    const edit = (body: Record<string, unknown>) =>
      t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, body, { token: p.sales.token }).then((r) => r.json());
    expect(await edit({ agreement: 'Keep this to yourself.' })).toMatchObject({ data: { agreementVersion: 1 } });
    expect(await edit({ agreement: 'A new text.' })).toMatchObject({ data: { agreement: 'A new text.', agreementVersion: 2 } });
    expect(await edit({ agreement: '' })).toMatchObject({ data: { agreement: null, agreementVersion: 2 } });
    expect(await edit({ agreement: 'Back again.' })).toMatchObject({ data: { agreementVersion: 3 } });
    // email_gate 0 does not turn the gate off while the code or a list needs it.
    expect(await edit({ email_gate: 0, allow_list: '', deny_list: [] })).toMatchObject({
      data: { emailGate: 1, allowList: [], denyList: [] },
    });
    expect(await edit({ email_verify: 0, email_gate: 0 })).toMatchObject({ data: { emailGate: 0, emailVerify: 0 } });
  });

  it('refuses a list entry that is no address or domain, more than 200 entries, an agreement over 20,000 characters', async () => {
    const make = (body: Record<string, unknown>) => createLink(t.server, p.appId, p.sales.token, { name: 'Bad', file_id: fileId, ...body });
    for (const [body, code] of [
      [{ allow_list: 'acme.com, not a domain' }, 'allow_list_invalid'],
      [{ deny_list: ['localhost'] }, 'deny_list_invalid'],
      [{ deny_list: '*.' }, 'deny_list_invalid'],
      [{ allow_list: Array.from({ length: 201 }, (_, i) => `d${i}.example`) }, 'allow_list_invalid'],
      [{ agreement: 'x'.repeat(20_001) }, 'agreement_invalid'],
    ] as const) {
      expect((await make(body)).json(), JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 0, code });
    }
    expect((await make({ agreement: 'x'.repeat(20_000) })).json()).toMatchObject({ status: 1 });
  });
});

describe('the e-mail gate with a code', () => {
  it('mails a six-digit code; the right one opens the link and ties the reader to that customer, verified', async () => {
    const link = await verifiedLink();
    const b = new Browser(t.server);
    const gate = await b.get(`/l/${link.shareToken}`);
    expect(gate.body).toContain('Send me a code');
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    const before = mailbox.inbox.length;
    const asked = await b.post(`/l/${link.shareToken}/gate`, form({ email: 'Ada@Example.com', name: 'Ada' }), FORM);
    expect(asked.statusCode).toBe(303);
    const mail = await codeMailedTo('Ada@Example.com', before);
    expect(mail.subject).toContain(mail.code);
    expect(mail.text).toContain('valid for 10 minutes');
    const codePage = await b.get(`/l/${link.shareToken}`);
    expect(codePage.body).toContain('Check your e-mail');
    expect(codePage.body).toContain('Ada@Example.com');
    expect(codePage.body).toContain('autocomplete="one-time-code"');
    // Still closed until the code.
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    const wrongCode = mail.code === '000000' ? '111111' : '000000';
    const wrong = await b.post(`/l/${link.shareToken}/verify`, form({ code: wrongCode }), FORM);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain('not right');
    expect((await b.post(`/l/${link.shareToken}/verify`, form({ code: 'abc' }), FORM)).statusCode).toBe(400);
    const clues = await count(t.server, 'clues');
    const right = await b.post(`/l/${link.shareToken}/verify`, form({ code: `${mail.code.slice(0, 3)} ${mail.code.slice(3)}` }), FORM);
    expect(right.statusCode).toBe(303);
    expect(await count(t.server, 'clues')).toBe(clues + 1);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('<img');
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
    expect(await visitorTie(b.cookies.get('rapport_visitor') as string)).toEqual({ customer_id: 'verify-ada', verified: 1 });
    // A code opens once: another browser asking for the address is sent a new one, and the used one is wrong.
    const again = new Browser(t.server);
    expect((await again.post(`/l/${link.shareToken}/gate`, form({ email: 'ada@example.com' }), FORM)).statusCode).toBe(303);
    const next = await codeMailedTo('ada@example.com', before + 1);
    if (next.code !== mail.code)
      expect((await again.post(`/l/${link.shareToken}/verify`, form({ code: mail.code }), FORM)).statusCode).toBe(403);
  });

  it('a verified tie stays: a later form of the same reader naming someone else does not move it', async () => {
    const link = await verifiedLink({ form_position: 1 });
    const b = new Browser(t.server);
    const before = mailbox.inbox.length;
    await b.post(`/l/${link.shareToken}/gate`, form({ email: 'ada+tie@example.com' }), FORM);
    const { code } = await codeMailedTo('ada+tie@example.com', before);
    expect((await b.post(`/l/${link.shareToken}/verify`, form({ code }), FORM)).statusCode).toBe(303);
    const visitor = b.cookies.get('rapport_visitor') as string;
    // The typed address (with its +tag) is no customer's: a customer is made for it, as the gate's form does.
    const tie = await visitorTie(visitor);
    expect(tie).toMatchObject({ verified: 1 });
    const sent = await b.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({ name: 'Mallory', email: 'mallory@example.com' }),
      'application/json',
    );
    expect(sent.json()).toEqual({ status: 1, data: {} });
    expect(await visitorTie(visitor)).toEqual(tie);
  });

  it('answers alike whether the address is a customer or not', async () => {
    const link = await verifiedLink();
    const known = await new Browser(t.server).post(`/l/${link.shareToken}/gate`, form({ email: 'ada@example.com' }), FORM);
    const unknown = await new Browser(t.server).post(`/l/${link.shareToken}/gate`, form({ email: 'nobody-here@example.com' }), FORM);
    expect([known.statusCode, known.headers.location]).toEqual([unknown.statusCode, unknown.headers.location]);
    expect(known.body).toBe(unknown.body);
  });

  it('the fifth wrong code locks the address on the link for 15 minutes: the right code refused, no new code sent', async () => {
    const link = await verifiedLink();
    const b = new Browser(t.server);
    const before = mailbox.inbox.length;
    await b.post(`/l/${link.shareToken}/gate`, form({ email: 'locked@example.com' }), FORM);
    const { code } = await codeMailedTo('locked@example.com', before);
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 1; i <= 4; i += 1) {
      expect((await b.post(`/l/${link.shareToken}/verify`, form({ code: wrongCode }), FORM)).statusCode).toBe(403);
    }
    const fifth = await b.post(`/l/${link.shareToken}/verify`, form({ code: wrongCode }), FORM);
    expect(fifth.statusCode).toBe(429);
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(fifth.body).toContain('Too many wrong codes');
    const right = await b.post(`/l/${link.shareToken}/verify`, form({ code }), FORM);
    expect(right.statusCode).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    // The same address however written (case, +tag) gets no new code while locked.
    const sentBefore = mailbox.inbox.length;
    const another = new Browser(t.server);
    const renewed = await another.post(`/l/${link.shareToken}/gate`, form({ email: 'Locked+again@EXAMPLE.com' }), FORM);
    expect(renewed.statusCode).toBe(429);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.inbox.length).toBe(sentBefore);
    // Another link's gate is not locked for the address.
    const other = await verifiedLink();
    expect((await new Browser(t.server).post(`/l/${other.shareToken}/gate`, form({ email: 'locked@example.com' }), FORM)).statusCode).toBe(
      303,
    );
  });

  it('a new code at most once a minute per address and link, whatever its case or +tag', async () => {
    const link = await verifiedLink();
    const b = new Browser(t.server);
    const before = mailbox.inbox.length;
    expect((await b.post(`/l/${link.shareToken}/gate`, form({ email: 'often@example.com' }), FORM)).statusCode).toBe(303);
    await codeMailedTo('often@example.com', before);
    const soon = await b.post(`/l/${link.shareToken}/gate`, form({ email: 'Often+1@Example.com' }), FORM);
    expect(soon.statusCode).toBe(429);
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(soon.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(soon.body).toContain('a moment ago');
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.inbox.length).toBe(before + 1);
    // "Use another address" forgets the address awaiting its code.
    expect((await b.post(`/l/${link.shareToken}/gate`, form({ change: '1' }), FORM)).statusCode).toBe(303);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('Send me a code');
  });
});

describe('spent codes', () => {
  it('are forgotten an hour after they were sent by the job link-code-expiry, unless the address is still locked', async () => {
    const now = Date.now();
    const row = (address: string, sentAt: number, lockedUntil: number | null) => ({
      app_id: p.appId,
      link_id: 'expiry-link',
      address,
      code_hash: null,
      expires_at: null,
      sent_at: sentAt,
      locked_until: lockedUntil,
    });
    await t.server.ctx.database.db
      .insertInto('link_email_codes')
      .values([
        row('old@example.com', now - 2 * 3600_000, null),
        row('locked@example.com', now - 2 * 3600_000, now + 60_000),
        row('new@example.com', now, null),
      ])
      .execute();
    const job = t.server.services.links.jobs.find((j) => j.name === 'link-code-expiry');
    expect(await job?.tick({ stopping: false })).toBe('worked');
    const left = await t.server.ctx.database.db
      .selectFrom('link_email_codes')
      .select('address')
      .where('app_id', '=', p.appId)
      .where('link_id', '=', 'expiry-link')
      .orderBy('address')
      .execute();
    expect(left.map((r) => r.address)).toEqual(['locked@example.com', 'new@example.com']);
  });
});

describe('allow and deny lists', () => {
  it('a denied domain is refused (403), however the address is written, and nothing is sent or written', async () => {
    const link = await verifiedLink({ deny_list: 'rival.com, *.rival.com' });
    const clues = await count(t.server, 'clues');
    const before = mailbox.inbox.length;
    for (const email of ['eve@rival.com', ' EVE@Rival.COM ', 'eve+x@rival.com', 'eve@eu.rival.com']) {
      const res = await new Browser(t.server).post(`/l/${link.shareToken}/gate`, form({ email }), FORM);
      expect(res.statusCode, email).toBe(403);
      expect(res.body).toContain('not shared with that address');
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.inbox.length).toBe(before);
    expect(await count(t.server, 'clues')).toBe(clues);
  });

  it('an address not on a non-empty allow list is refused; deny wins over allow; a listed one passes', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, {
      name: 'Partners only',
      file_id: fileId,
      allow_list: 'acme.com',
      deny_list: 'boss@acme.com',
    });
    expect(link.emailGate).toBe(1);
    const gate = (email: string) => new Browser(t.server).post(`/l/${link.shareToken}/gate`, form({ email }), FORM);
    expect((await gate('carol@other.com')).statusCode).toBe(403);
    // A subdomain of a listed domain is not the domain.
    expect((await gate('carol@eu.acme.com')).statusCode).toBe(403);
    expect((await gate('Boss+x@ACME.com')).statusCode).toBe(403);
    const b = new Browser(t.server);
    expect((await b.post(`/l/${link.shareToken}/gate`, form({ email: 'carol@acme.com' }), FORM)).statusCode).toBe(303);
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
    // A list added later closes the link to a cookie of an address it refuses.
    await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { deny_list: 'acme.com' }, { token: p.sales.token });
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
  });
});

describe('a room link with a code', () => {
  it('opens the room and its documents with the mailed code; five wrong codes lock it; a denied domain is refused', async () => {
    const link = await madeRoomLink(t.server, p.appId, p.sales.token, fileId, {
      name: 'Room under a code',
      email_verify: 1,
      deny_list: 'rival.com',
    });
    const doc = `/l/${link.shareToken}/doc/${fileId}`;
    const b = new Browser(t.server);
    expect((await b.get(`/l/${link.shareToken}`)).body).toContain('Send me a code');
    // A document's address asks the same gate; its page images are the 404 until then.
    expect((await b.get(doc)).body).toContain('Send me a code');
    expect((await b.get(`${doc}/page/1`)).statusCode).toBe(404);

    const denied = await new Browser(t.server).post(`/l/${link.shareToken}/gate`, form({ email: 'eve@Rival.com' }), FORM);
    expect(denied.statusCode).toBe(403);

    let before = mailbox.inbox.length;
    expect((await b.post(`/l/${link.shareToken}/gate`, form({ email: 'ada@example.com' }), FORM)).statusCode).toBe(303);
    const { code } = await codeMailedTo('ada@example.com', before);
    expect((await b.post(`/l/${link.shareToken}/verify`, form({ code }), FORM)).statusCode).toBe(303);
    const roomPage = await b.get(`/l/${link.shareToken}`);
    expect(roomPage.body).toContain('Due diligence');
    expect(roomPage.body).toContain(`/doc/${fileId}`);
    expect((await b.get(doc)).body).toContain('<img');
    expect((await b.get(`${doc}/page/1`)).statusCode).toBe(200);
    expect(await visitorTie(b.cookies.get('rapport_visitor') as string)).toEqual({ customer_id: 'verify-ada', verified: 1 });

    // Another reader's fifth wrong code locks their address on the room link: the right code is refused.
    const other = new Browser(t.server);
    before = mailbox.inbox.length;
    await other.post(`/l/${link.shareToken}/gate`, form({ email: 'grace@example.com' }), FORM);
    const mailed = await codeMailedTo('grace@example.com', before);
    const wrong = String((Number(mailed.code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 1; i <= 4; i += 1)
      expect((await other.post(`/l/${link.shareToken}/verify`, form({ code: wrong }), FORM)).statusCode).toBe(403);
    expect((await other.post(`/l/${link.shareToken}/verify`, form({ code: wrong }), FORM)).statusCode).toBe(429);
    expect((await other.post(`/l/${link.shareToken}/verify`, form({ code: mailed.code }), FORM)).statusCode).toBe(429);
    expect((await other.get(`${doc}/page/1`)).statusCode).toBe(404);
    expect((await other.get(`/l/${link.shareToken}`)).body).not.toContain(`/doc/${fileId}`);
  });
});
