// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/files.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { type AbuseProject, type AbuseUser, createProject, readScalar, signUp, underAttack, useAbuseServer } from './harness.ts';

/**
 * Strangers at a shared link's gates (docs/links.md, "Who is reading"): guessing the e-mail gate's
 * code from many addresses (the address locks after five wrong ones, the right code refused too, and
 * +tags buy no fresh tries); getting past a deny list by case, white space or a +tag; reading a
 * document under an agreement without accepting it, by asking its page images, its download, its
 * form and its beacons directly, or with another link's or an older version's cookie.
 */
const mailbox = await startMailbox();
const s = useAbuseServer({
  TRUST_PROXY: '1',
  RATE_LIMIT_TOKEN: '100000',
  SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
  SMTP_FROM: 'Rapport <links@example.com>',
});
afterAll(async () => {
  await mailbox.close();
});

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FORM = 'application/x-www-form-urlencoded';
const randomAddress = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

let owner: AbuseUser;
let project: AbuseProject;
let victim: AbuseUser;
let fileId = '';
let victimBefore = '';

const victimView = async () => JSON.stringify(await (await fetch(`${s.server.base}/api/v1.7/my-apps`, { headers: victim.auth })).json());
const probe = () => fetch(`${s.server.base}/api/v1.7/my-apps`, { headers: victim.auth });

/** A public request from a browser at `address`, with the cookies given. */
function visit(path: string, opts: { address?: string; cookie?: string; body?: string; type?: string } = {}): Promise<Response> {
  return fetch(`${s.server.base}${path}`, {
    method: opts.body === undefined ? 'GET' : 'POST',
    redirect: 'manual',
    headers: {
      'user-agent': UA,
      'x-forwarded-for': opts.address ?? randomAddress(),
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...(opts.body === undefined ? {} : { 'content-type': opts.type ?? FORM }),
    },
    ...(opts.body === undefined ? {} : { body: opts.body }),
  });
}

/** The cookies an answer sets, as a Cookie header. */
const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

async function makeLink(body: Record<string, unknown>): Promise<{ id: string; shareToken: string }> {
  const res = await fetch(`${s.server.base}/api/v1.7/app/${project.appId}/links`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { status: number; data: { id: string; shareToken: string } };
  if (json.status !== 1) throw new Error(`making a link answered ${JSON.stringify(json)}`);
  return json.data;
}

beforeAll(async () => {
  owner = await signUp(s.server);
  victim = await signUp(s.server);
  project = await createProject(s.server, owner, 'Gated links');
  await createProject(s.server, victim, 'Another project');
  victimBefore = await victimView();
  for (let i = 0; i < 4; i += 1) expect((await probe()).ok).toBe(true);
  const form = new FormData();
  form.append('file', new Blob([fixture('deck.pdf')], { type: 'application/pdf' }), 'deck.pdf');
  const up = await fetch(`${s.server.base}/api/v1.7/app/${project.appId}/files`, { method: 'POST', headers: owner.auth, body: form });
  fileId = ((await up.json()) as { data: { id: string } }).data.id;
  for (let i = 0; ; i += 1) {
    const f = (await (await fetch(`${s.server.base}/api/v1.7/app/${project.appId}/file/${fileId}`, { headers: owner.auth })).json()) as {
      data: { status: string };
    };
    if (f.data.status === 'ready') break;
    if (i > 200) throw new Error('the deck was not rendered');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

describe("the e-mail gate's code", () => {
  it('guessed from many addresses: five wrong codes lock the address, the right one refused too; +tags buy nothing', async () => {
    const link = await makeLink({ name: 'Verified', file_id: fileId, email_verify: 1 });
    const before = mailbox.inbox.length;
    const asked = await visit(`/l/${link.shareToken}/gate`, { body: 'email=target%40example.com' });
    expect(asked.status).toBe(303);
    const cookie = cookiesOf(asked);
    const mails = await mailbox.waitFor(before + 1);
    const code = /\b(\d{6})\b/.exec(mails.at(-1)?.mail.text ?? '')?.[1] as string;
    expect(code).toMatch(/^\d{6}$/);
    const guess = () => {
      let g = code;
      while (g === code) g = String(randomBytes(3).readUIntBE(0, 3) % 1_000_000).padStart(6, '0');
      return visit(`/l/${link.shareToken}/verify`, { cookie, body: `code=${g}` });
    };
    const run = await underAttack(
      s.server,
      async () => {
        const statuses: number[] = [];
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (statuses.length < 100) {
              const res = await guess();
              await res.arrayBuffer();
              statuses.push(res.status);
            }
          }),
        );
        return statuses;
      },
      probe,
      150,
    );
    expect(run.result.every((x) => x === 403 || x === 429)).toBe(true);
    expect(run.result.filter((x) => x === 403).length).toBeLessThanOrEqual(4);
    const right = await visit(`/l/${link.shareToken}/verify`, { cookie, body: `code=${code}` });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.headers.get('set-cookie')).toBeNull();
    // The same mailbox under another spelling is the same address: no new code, no fresh tries.
    const sent = mailbox.inbox.length;
    for (const email of ['Target+1@example.com', 'TARGET@EXAMPLE.COM', ' target+x@Example.com ']) {
      const again = await visit(`/l/${link.shareToken}/gate`, { body: `email=${encodeURIComponent(email)}` });
      expect(again.status, email).toBe(429);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.inbox.length).toBe(sent);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);
  });
});

describe('a deny list', () => {
  it('is not passed by case, white space, a +tag or a final dot; nothing is sent or written', async () => {
    const link = await makeLink({ name: 'Not for rivals', file_id: fileId, email_verify: 1, deny_list: 'rival.com, spy@partner.com' });
    const clues = Number(await readScalar(s.server, 'select count(*) as n from clues where app_id = ?', [project.appId]));
    const sent = mailbox.inbox.length;
    const variants = [
      'spy@partner.com',
      'SPY@Partner.COM',
      '  spy@partner.com  ',
      'spy+x@partner.com',
      'Spy+deals+more@PARTNER.com',
      'eve@rival.com',
      'EVE@RIVAL.COM',
      'eve+1@rival.com',
      'eve@rival.com.',
      'spy@partner.com.',
      'ｓｐｙ@partner.com',
    ];
    const run = await underAttack(
      s.server,
      () => Promise.all(variants.map((email) => visit(`/l/${link.shareToken}/gate`, { body: `email=${encodeURIComponent(email)}` }))),
      probe,
      50,
    );
    for (const [i, res] of run.result.entries()) {
      // Refused (403), or not an address at all (400): never passed, never sent a code.
      expect([403, 400], variants[i]).toContain(res.status);
      expect(res.headers.get('location'), variants[i]).toBeNull();
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.inbox.length).toBe(sent);
    expect(Number(await readScalar(s.server, 'select count(*) as n from clues where app_id = ?', [project.appId]))).toBe(clues);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
  });
});

describe('an agreement', () => {
  it("is not skipped by asking the page images, the download, the form or the beacons, nor with another link's cookie", async () => {
    const link = await makeLink({ name: 'NDA', file_id: fileId, allow_download: 1, form_position: 1, agreement: 'Secret.' });
    const other = await makeLink({ name: 'Other NDA', file_id: fileId, agreement: 'Other.' });
    // A cookie that accepted the other link's agreement, and one of this link's first version.
    const otherCookie = cookiesOf(await visit(`/l/${other.shareToken}/agree`, { body: 'version=1&agree=1' }));
    const oldCookie = cookiesOf(await visit(`/l/${link.shareToken}/agree`, { body: 'version=1&agree=1' }));
    await fetch(`${s.server.base}/api/v1.7/app/${project.appId}/link/${link.id}`, {
      method: 'PUT',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ agreement: 'Secret, second version.' }),
    });
    const token = link.shareToken;
    const beacon = JSON.stringify({ type: 'open', seq: 1, token: 'forged.token', page: 1 });
    const tries = (cookie: string | undefined) => [
      visit(`/l/${token}/page/1`, { cookie }),
      visit(`/l/${token}/page/2?width=desktop`, { cookie }),
      visit(`/l/${token}/download`, { cookie }),
      visit(`/l/${token}/events`, { cookie, body: beacon, type: 'text/plain' }),
      visit(`/l/${token}/form`, { cookie, body: JSON.stringify({ name: 'Sneaky' }), type: 'application/json' }),
      visit(`/l/${token}`, { cookie }),
    ];
    const run = await underAttack(
      s.server,
      async () => {
        const answers: { path: number; status: number; body: string }[] = [];
        for (const cookie of [undefined, otherCookie, oldCookie, `rapport_unlock=${'A'.repeat(40)}.${'B'.repeat(22)}`]) {
          for (const [i, res] of (await Promise.all(tries(cookie))).entries())
            answers.push({ path: i, status: res.status, body: await res.text() });
        }
        return answers;
      },
      probe,
      50,
    );
    for (const a of run.result) {
      if (a.path <= 2) expect(a.status).toBe(404);
      else if (a.path <= 4) expect([a.status, (JSON.parse(a.body) as { code: string }).code]).toEqual([400, 'link_unavailable']);
      else {
        expect(a.status).toBe(200);
        expect(a.body).toContain('name="agree"');
        expect(a.body).not.toContain('<img');
      }
    }
    expect(Number(await readScalar(s.server, 'select count(*) as n from link_view_logs where app_id = ?', [project.appId]))).toBe(0);
    expect(s.server.alive()).toBe(true);
    expect(run.worstMs).toBeLessThan(1000);
    expect(await victimView()).toBe(victimBefore);
  });
});
