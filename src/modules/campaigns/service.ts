import net from 'node:net';
import type { Kysely } from 'kysely';
import type { Transporter } from 'nodemailer';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { AppError, failure, fieldFailure, publicFailure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { randomToken } from '../../lib/secrets.ts';
import { type SigningKey, deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { IngestCaller, IngestService } from '../ingest/service.ts';
import { type CampaignRow, type CampaignView, type RecipientCustomer, type RecipientRow, toCampaign } from './mapper.ts';
import {
  type MergeValues,
  type PreparedTemplate,
  SAMPLE_VALUES,
  TemplateError,
  normaliseEmail,
  prepareTemplate,
  renderMail,
} from './render.ts';
import { campaignsRepository as repo } from './repository.ts';

/** What the create endpoint takes (snake_case, as the other endpoints). */
export interface CampaignInput {
  title?: string | undefined;
  html?: string | undefined;
  customer_ids?: string | string[] | undefined;
  group_id?: string | undefined;
  send_at?: string | undefined;
}

/** A draft of a campaign's mail, for a preview or a test send. */
export interface DraftInput {
  title?: string | undefined;
  html?: string | undefined;
  /** The customer whose merge values fill the draft; sample values when none. */
  customer_id?: string | undefined;
}

/** The mark before a test mail's subject. */
export const TEST_MARK = '[Test]';

/** Who is behind a tracked request (the routes read it). */
export interface TrackedRequest {
  userAgent: string | undefined;
  /** The whole client address (used to recognise mail proxies; never stored). */
  ip: string | undefined;
}

/**
 * Verifies the signed `rapport_click` parameter a tracked click appended to its target, for the
 * site-tracking service: the customer and campaign it names, or null (forged, another project's).
 */
export type MailClickResolver = (appId: string, token: string) => Promise<{ customerId: string; postId: string } | null>;

type SocketOptions = { host?: string; port?: number | string; secure?: boolean };
type SocketCallback = (err: Error | null, socket: { connection: net.Socket } | false) => void;

/** The SMTP side, replaceable in tests: nodemailer's sendMail. */
export type MailTransport = Pick<Transporter, 'sendMail' | 'close'>;

/** Recipients a campaign may have at most. */
export const MAX_RECIPIENTS = 100_000;
/** The HTML body, at most (characters). */
export const MAX_HTML = 512 * 1024;
/** How often an idle sender looks for due campaigns. */
const POLL_MS = 1000;
/** How long a sender waits after the SMTP server could not be reached before trying again. */
const SMTP_DOWN_BACKOFF_MS = 5000;
/**
 * Send loops per process: while one writes what its window did (states, counters, behaviour), the
 * others' windows are on the wire. Each has at most one window in `sending`.
 */
const LOOPS = 3;
/** How often a sender looks for recipients a stopped process left in `sending`. */
const STALE_SWEEP_MS = 5000;
/** Ingestion's batch limit: behaviour records written per call. */
const BEHAVIOUR_BATCH = 500;

/** User-Agents of mail privacy proxies and scanners that fetch images without a person. */
const MAIL_PROXY_UA = /GoogleImageProxy|ggpht\.com|YahooMailProxy|Mimecast|Barracuda|Proofpoint|^Mozilla\/5\.0$/i;

/** Apple's 17.0.0.0/8 (Mail Privacy Protection fetches from Apple's own addresses). */
function isAppleAddress(ip: string | undefined): boolean {
  if (ip === undefined) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return /^17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** SMTP errors where the mail certainly did not leave: the connection or log-in failed. */
function notSent(err: { code?: string; command?: string }): boolean {
  return err.code === 'ECONNECTION' || err.code === 'EDNS' || err.code === 'EAUTH' || (err.code === 'ESOCKET' && err.command === 'CONN');
}

/** A token bucket: `take()` resolves when the next send may start, at most `perSecond` a second. */
function rateLimiter(perSecond: number) {
  const gap = 1000 / perSecond;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };
}

const splitIds = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : (v ?? '').split(',')).map((s) => s.trim()).filter((s) => s !== '');

/**
 * E-mail campaigns (docs/campaigns.md): made through the API, sent by a worker in each server process
 * from a durable per-recipient queue in the database, tracked by a signed open pixel and signed
 * links, and unsubscribed from by a signed link. The campaign's Post record (the interface's
 * `posts`) and the behaviour records of sends and opens are written through the ingestion service;
 * the Post's counters move as mail goes out and is read.
 */
export function createCampaignsService(
  ctx: AppContext,
  deps: {
    access: AccessService;
    accounts: AccountsService;
    ingest: IngestService;
    /** The SMTP transport; by default nodemailer's pool on SMTP_URL (none without it). */
    transport?: MailTransport | null;
  },
) {
  const { access, accounts, ingest } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger, config } = ctx;
  const base = config.publicBaseUrl;
  const worker = `${process.pid}.${randomToken(6)}`;

  let transport: MailTransport | null | undefined = deps.transport;
  async function mailer(): Promise<MailTransport | null> {
    if (transport !== undefined) return transport;
    if (config.smtpUrl === undefined) return (transport = null);
    const nodemailer = (await import('nodemailer')).default;
    // nodemailer reads a URL's options from its query string only (an options object with `url`
    // drops every other field): the pool's settings go there, unless SMTP_URL sets them itself.
    const url = new URL(config.smtpUrl);
    const pool = { pool: 'true', maxConnections: String(config.mailConnections), maxMessages: 'Infinity' };
    for (const [k, v] of Object.entries(pool)) if (!url.searchParams.has(k)) url.searchParams.set(k, v);
    // DKIM as a default of every message (the transport's own options come from the URL).
    const pooled = nodemailer.createTransport(url.href, config.mailDkim ? { dkim: { ...config.mailDkim } } : undefined);
    // The pool's connections without Nagle's delay: a message's last segment waited for the server's
    // delayed ACK (about 40 ms a mail per connection). A connection that fails falls back to
    // nodemailer's own, which reports the failure as usual.
    const poolTransport = pooled.transporter as unknown as { getSocket: (o: SocketOptions, cb: SocketCallback) => void };
    poolTransport.getSocket = (o, cb) => {
      const socket = net.connect({ host: o.host ?? 'localhost', port: Number(o.port) || (o.secure ? 465 : 587), noDelay: true });
      const fallback = () => {
        socket.destroy();
        cb(null, false);
      };
      socket.once('error', fallback);
      socket.once('connect', () => {
        socket.off('error', fallback);
        cb(null, { connection: socket });
      });
    };
    transport = pooled;
    return transport;
  }

  // ---- Keys: derived from a secret the server makes once and keeps in the database (as the share
  // links' view tokens are), so that every process signs and checks alike. ----
  let keys: Promise<{ mail: SigningKey; click: SigningKey }> | null = null;
  function signingKeys() {
    keys ??= repo
      .serverSecret(db, 'campaigns', randomToken(32), clock.now())
      .then((secret) => {
        const raw = Buffer.from(secret, 'base64url');
        return { mail: deriveKey(raw, 'mail tracking'), click: deriveKey(raw, 'mail click') };
      })
      .catch((err: unknown) => {
        keys = null;
        throw err;
      });
    return keys;
  }

  const recipientToken = async (appId: string, recipientId: string) => signValue((await signingKeys()).mail, { a: appId, r: recipientId });

  /** The recipient a `rapport_click` token of the project names, if the token is good. */
  async function clickRecipient(appId: string, token: string) {
    const value = verifyValue((await signingKeys()).click, token) as { a?: unknown; r?: unknown } | null;
    if (value === null || value.a !== appId || typeof value.r !== 'string') return undefined;
    return repo.recipient(db, appId, value.r);
  }

  /** The recipient a tracking token names, with its campaign; throws mail_token_invalid otherwise. */
  async function recipientOf(token: string): Promise<{ rec: RecipientRow; campaign: CampaignRow }> {
    const value = verifyValue((await signingKeys()).mail, token) as { a?: unknown; r?: unknown } | null;
    if (value === null || typeof value.a !== 'string' || typeof value.r !== 'string') throw publicFailure('mail_token_invalid');
    const rec = await repo.recipient(db, value.a, value.r);
    const campaign = rec === undefined ? undefined : await repo.campaign(db, rec.app_id, rec.campaign_id);
    if (rec === undefined || campaign === undefined) throw publicFailure('mail_token_invalid');
    return { rec, campaign };
  }

  const urls = (token: string) => ({
    click: (n: number) => `${base}/m/c/${token}/${n}`,
    pixel: `${base}/m/o/${token}`,
    unsubscribe: `${base}/m/u/${token}`,
  });

  // ---- Writing through ingestion: the Post record, behaviour records. ----

  const callerFor = (c: CampaignRow): IngestCaller => ({ appId: c.app_id, defaultOwner: c.owner_id, by: 'secret' });
  const behaviour = (id: string, customerId: string, action: string, when: number, content: Record<string, unknown>) => ({
    event_type: 'create',
    domainType: 'BehaviourLog',
    domainId: id,
    body: { customerId, action, when: new Date(when).toISOString(), content: JSON.stringify(content) },
  });

  /**
   * Stores behaviour records through ingestion (idempotent by id). A batch refused because one of its
   * customers went away since the campaign was made is written item by item, without the refused ones.
   */
  async function writeBehaviour(c: CampaignRow, items: ReturnType<typeof behaviour>[]): Promise<void> {
    for (let i = 0; i < items.length; i += BEHAVIOUR_BATCH) {
      const chunk = items.slice(i, i + BEHAVIOUR_BATCH);
      try {
        await ingest.ingest(callerFor(c), chunk);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid_events') throw err;
        for (const item of chunk) {
          try {
            await ingest.ingest(callerFor(c), [item]);
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            logger.warn({ postId: c.id, record: item.domainId, msg: e.message }, 'campaigns: behaviour record refused');
          }
        }
      }
    }
  }

  /** The campaign's Post record, stored once (ingestion skips it when it is there). */
  async function ensurePost(c: CampaignRow): Promise<void> {
    if (await repo.postExists(db, c.app_id, c.id)) return;
    const owner = await accounts.userById(c.owner_id);
    await ingest.ingest(callerFor(c), [
      {
        event_type: 'create',
        domainType: 'Post',
        domainId: c.id,
        body: {
          ownerId: c.owner_id,
          ownerName: owner?.name ?? null,
          title: c.title,
          sendWay: 'email',
          sendTime: new Date(c.send_at).toISOString(),
          senderCount: c.recipient_count,
        },
      },
    ]);
  }

  /** Whether the server can send mail (SMTP_URL, or a transport given in tests). */
  const mailConfigured = () => config.smtpUrl !== undefined || (deps.transport !== undefined && deps.transport !== null);

  /** The subject and body of a draft, checked as a campaign's are; the template prepared (links collected). */
  function checkDraft(input: DraftInput): { title: string; prepared: PreparedTemplate } {
    const title = (input.title ?? '').trim();
    if (title === '') throw fieldFailure('title', 'required', 'title is required');
    if (title.length > 1000 || title.includes('\u0000'))
      throw fieldFailure('title', 'invalid', 'title is at most 1000 characters, without NUL');
    const html = input.html ?? '';
    if (html.trim() === '') throw fieldFailure('html', 'required', 'html is required');
    if (html.length > MAX_HTML) throw fieldFailure('html', 'invalid', `html is at most ${MAX_HTML} characters`);
    try {
      return { title, prepared: prepareTemplate(html) };
    } catch (e) {
      if (e instanceof TemplateError) throw fieldFailure('html', 'invalid', e.message);
      throw e;
    }
  }

  /**
   * The recipients `customer_ids` or `group_id` name, one customer per normalised address: live
   * customers the caller may mail (a Sales member: their own), with a valid address not suppressed.
   * Null when neither is given. A customer named by id that the caller may not see is refused, as
   * an unknown one is.
   */
  async function recipientsOf(
    appId: string,
    callerId: number,
    isManager: boolean,
    input: Pick<CampaignInput, 'customer_ids' | 'group_id'>,
  ): Promise<Map<string, RecipientCustomer> | null> {
    const ids = splitIds(input.customer_ids);
    const groupId = (input.group_id ?? '').trim();
    if (ids.length === 0 && groupId === '') return null;
    if (ids.length > 0 && groupId !== '') throw fieldFailure('customer_ids', 'invalid', 'give customer_ids or group_id, not both');
    if (ids.length > MAX_RECIPIENTS) throw fieldFailure('customer_ids', 'invalid', `at most ${MAX_RECIPIENTS} customers`);
    const badId = [...ids, groupId].find((id) => id.length > 64 || id.includes('\u0000'));
    if (badId !== undefined) throw failure(ids.includes(badId) ? 'customer_not_found' : 'group_not_found');
    const found = await repo.customers(db, appId, ids.length > 0 ? { ids: [...new Set(ids)] } : { groupId }, isManager ? null : callerId);
    if (ids.length > 0) {
      const seen = new Set(found.map((c) => c.id));
      const missing = ids.find((id) => !seen.has(id));
      if (missing !== undefined) throw failure('customer_not_found', `customer ${missing} not found`);
    }
    const withAddress = found.filter((c) => c.email !== null && isEmail(c.email.trim()));
    const suppressed = await repo.suppressed(
      db,
      appId,
      withAddress.map((c) => normaliseEmail(c.email as string)),
    );
    // One mail per address: two customers with the same address get it once.
    const byAddress = new Map<string, RecipientCustomer>();
    for (const c of withAddress) {
      const norm = normaliseEmail(c.email as string);
      if (!suppressed.has(norm) && !byAddress.has(norm)) byAddress.set(norm, c);
    }
    return byAddress;
  }

  /**
   * A draft rendered as its mail would be for one customer (a Sales member: one of their own), or
   * for sample values: merge values escaped as in a sent mail, links to their own targets (a preview
   * counts no click), no open pixel, an unsubscribe link that leads nowhere.
   */
  async function renderDraft(appId: string, callerId: number, isManager: boolean, input: DraftInput) {
    const { title, prepared } = checkDraft(input);
    const customerId = (input.customer_id ?? '').trim();
    let values: MergeValues = SAMPLE_VALUES;
    if (customerId !== '') {
      if (customerId.length > 64 || customerId.includes('\u0000')) throw failure('customer_not_found');
      const [c] = await repo.customers(db, appId, { ids: [customerId] }, isManager ? null : callerId);
      if (c === undefined) throw failure('customer_not_found', `customer ${customerId} not found`);
      values = { name: c.name, email: c.email, company: c.company, title: c.title, phone: c.phone };
    }
    const { html, text } = renderMail(prepared.html, values, {
      click: (n) => prepared.targets[n] ?? '#',
      pixel: null,
      unsubscribe: '#unsubscribe',
    });
    return { title, html, text, customerId: customerId === '' ? null : customerId };
  }

  // ---- The API ----

  async function ownCampaign(appId: string, callerId: number, postId: string): Promise<CampaignRow> {
    const m = await access.membership(appId, callerId);
    const c = await repo.campaign(db, appId, postId);
    if (c === undefined || (!m.isManager && c.owner_id !== callerId)) throw failure('post_not_found');
    return c;
  }

  async function view(c: CampaignRow): Promise<CampaignView> {
    return toCampaign(c, await repo.stateCounts(db, c.app_id, c.id), (ms) => clock.format(ms));
  }

  // ---- Sending ----

  const wakers = new Set<() => void>();
  const nudge = () => {
    for (const w of wakers) w();
  };
  const limiter = rateLimiter(config.mailRatePerSecond);
  /**
   * Recipients claimed per statement and sent at once: enough to keep every pooled connection busy
   * and spread the window's few statements over many mails, few enough that a crash leaves few
   * recipients `unknown` (at most one window per process).
   */
  const WINDOW = Math.max(4, config.mailConnections * 5);
  let smtpDownUntil = 0;

  async function send(c: CampaignRow, rec: RecipientRow, from: { name: string; address: string }, t: MailTransport): Promise<void> {
    const token = await recipientToken(c.app_id, rec.id);
    const u = urls(token);
    const values = JSON.parse(rec.fields) as MergeValues;
    const { html, text } = renderMail(c.html, values, u);
    await t.sendMail({
      from,
      to: values.name ? { name: values.name, address: rec.email } : rec.email,
      subject: c.title,
      html,
      text,
      messageId: `<${rec.id}@${new URL(base).hostname}>`,
      list: { unsubscribe: u.unsubscribe },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'X-Rapport-Post': c.id },
    });
  }

  /** The From display name of a project's mail (its name), read once a minute at most. */
  const names = new Map<string, { name: string; at: number }>();
  async function fromName(appId: string): Promise<string> {
    const known = names.get(appId);
    if (known !== undefined && Date.now() - known.at < 60_000) return known.name;
    const name = (await repo.projectName(db, appId)) ?? 'Rapport';
    if (names.size > 1000) names.clear();
    names.set(appId, { name, at: Date.now() });
    return name;
  }
  /** A project's mail `From`: its name, with SMTP_FROM's address. */
  async function fromOf(appId: string): Promise<{ name: string; address: string }> {
    return { name: await fromName(appId), address: /<([^>]+)>/.exec(config.smtpFrom)?.[1] ?? config.smtpFrom };
  }
  /** Campaigns whose Post record this process has seen stored. */
  const posted = new Set<string>();
  let sweptAt = 0;

  /** Sends one claimed window of a campaign; the number of recipients settled. */
  async function sendWindow(c: CampaignRow, batch: RecipientRow[], t: MailTransport): Promise<number> {
    const appId = c.app_id;
    const suppressed = await repo.suppressed(db, appId, [...new Set(batch.map((r) => r.email_norm))]);
    const blocked = batch.filter((r) => suppressed.has(r.email_norm));
    await repo.settle(
      db,
      appId,
      blocked.map((r) => r.id),
      worker,
      'suppressed',
      { error: 'the address is unsubscribed or bounced' },
    );
    const go = batch.filter((r) => !suppressed.has(r.email_norm));
    const from = await fromOf(appId);
    const results = await Promise.allSettled(
      go.map(async (r) => {
        await limiter();
        await send(c, r, from, t);
      }),
    );
    const sent: RecipientRow[] = [];
    const back: string[] = [];
    const now = clock.now();
    for (let i = 0; i < go.length; i++) {
      const r = go[i] as RecipientRow;
      const res = results[i] as PromiseSettledResult<void>;
      if (res.status === 'fulfilled') {
        sent.push(r);
        continue;
      }
      const err = res.reason as { code?: string; command?: string; responseCode?: number; response?: string; message?: string };
      const reason = (err.response ?? err.message ?? String(err)).slice(0, 1000);
      if (typeof err.responseCode === 'number') {
        await repo.settle(db, appId, [r.id], worker, 'failed', { error: reason });
        if (err.responseCode >= 500) await repo.suppress(db, appId, r.email_norm, 'bounce', reason, now);
      } else if (notSent(err)) {
        back.push(r.id);
      } else {
        await repo.settle(db, appId, [r.id], worker, 'unknown', { error: reason });
      }
    }
    if (back.length > 0) {
      await repo.settle(db, appId, back, worker, 'queued');
      smtpDownUntil = Date.now() + SMTP_DOWN_BACKOFF_MS;
      logger.warn({ postId: c.id, waiting: back.length }, 'campaigns: the SMTP server cannot be reached; trying again shortly');
    }
    const settled = await repo.settle(
      db,
      appId,
      sent.map((r) => r.id),
      worker,
      'sent',
      { sent_at: now },
    );
    if (settled > 0) await repo.bumpPost(db, appId, c.id, { success_log_count: settled });
    const action = c.material_link_id !== null ? 'send_data_by_mail' : 'mail_sent';
    const content = c.material_link_id !== null ? { linkId: c.material_link_id } : { postId: c.id, title: c.title };
    await writeBehaviour(
      c,
      sent.map((r) => behaviour(`mail-sent.${r.id}`, r.customer_id, action, now, content)),
    );
    return batch.length - back.length;
  }

  /** One pass over the due campaigns: a window of each. The number of recipients settled. */
  async function pass(): Promise<number> {
    const t = await mailer();
    if (t === null || Date.now() < smtpDownUntil) return 0;
    const now = clock.now();
    // Recipients a stopped process left in `sending`: looked for every few seconds, not every pass.
    if (Date.now() - sweptAt >= STALE_SWEEP_MS) {
      sweptAt = Date.now();
      const stale = await repo.staleSending(db, now - config.mailSendingStaleSeconds * 1000, worker);
      if (stale > 0) logger.warn({ recipients: stale }, 'campaigns: recipients left in sending by a stopped process are now unknown');
    }
    let settled = 0;
    for (const c of await repo.dueCampaigns(db, now, 20)) {
      if (!posted.has(c.id)) {
        await ensurePost(c);
        if (posted.size > 10_000) posted.clear();
        posted.add(c.id);
      }
      const batch = await repo.claim(db, c.app_id, c.id, worker, clock.now(), WINDOW);
      if (batch.length === 0) {
        if (await repo.finishIfDrained(db, c.app_id, c.id, clock.now())) logger.info({ postId: c.id }, 'campaigns: campaign sent');
        continue;
      }
      settled += await sendWindow(c, batch, t);
      if (Date.now() < smtpDownUntil) break;
    }
    return settled;
  }

  let running: Promise<void> | null = null;
  let stopped = true;

  /** Sends until nothing is due. For tests and the bench: what the worker does, awaited. */
  async function drain(): Promise<void> {
    await Promise.all(Array.from({ length: LOOPS }, drainOne));
  }
  async function drainOne(): Promise<void> {
    for (;;) {
      if ((await pass()) > 0) continue;
      if (Date.now() < smtpDownUntil || (await repo.dueCampaigns(db, clock.now(), 1)).length === 0) return;
      // Due, but nothing to claim: another process's mails are in flight.
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return {
    worker,

    /** Creates a campaign (any member; a Sales member mails only their own customers) and queues its recipients. */
    async create(appId: string, callerId: number, input: CampaignInput): Promise<CampaignView> {
      const m = await access.membership(appId, callerId);
      if (!mailConfigured()) throw failure('mail_not_configured');
      const { title, prepared } = checkDraft(input);
      const now = clock.now();
      let sendAt = now;
      if (input.send_at !== undefined && input.send_at.trim() !== '') {
        const parsed = clock.parse(input.send_at.trim());
        if (parsed === null) throw fieldFailure('send_at', 'invalid', 'send_at is yyyy-MM-dd HH:mm:ss, or ISO 8601 with an offset');
        sendAt = parsed;
      }
      const byAddress = await recipientsOf(appId, callerId, m.isManager, input);
      if (byAddress === null) throw fieldFailure('customer_ids', 'required', 'customer_ids or group_id is required');
      if (byAddress.size === 0) throw failure('no_recipients');
      if (byAddress.size > MAX_RECIPIENTS) throw fieldFailure('group_id', 'invalid', `a campaign has at most ${MAX_RECIPIENTS} recipients`);

      // A target that is one of the project's share links makes the mail a material send.
      const sharePrefix = `${base}/l/`;
      const shareTokens = prepared.targets
        .filter((t) => t.startsWith(sharePrefix))
        .map((t) => new URL(t).pathname.split('/')[2] ?? '')
        .filter((t) => t !== '');
      const material = (await repo.linksByShareToken(db, appId, shareTokens))[0]?.id ?? null;

      const id = timeOrderedUuid(now);
      const row = {
        id,
        app_id: appId,
        owner_id: callerId,
        title,
        html: prepared.html,
        status: 'active',
        send_at: sendAt,
        material_link_id: material,
        recipient_count: byAddress.size,
        created_at: now,
        updated_at: now,
        finished_at: null,
      };
      await db.transaction().execute((trx) =>
        repo.insertCampaign(
          trx,
          row,
          prepared.targets.map((url, position) => ({ app_id: appId, campaign_id: id, position, url })),
          [...byAddress].map(([norm, c]) => ({
            id: timeOrderedUuid(now),
            app_id: appId,
            campaign_id: id,
            customer_id: c.id,
            email: (c.email as string).trim(),
            email_norm: norm,
            fields: JSON.stringify({ name: c.name, email: c.email, company: c.company, title: c.title, phone: c.phone }),
            state: 'queued',
            opens: 0,
            machine_opens: 0,
            clicks: 0,
            returns: 0,
            created_at: now,
          })),
        ),
      );
      // The Post record now, so that the list shows the campaign at once; the sender stores it too if this fails.
      try {
        await ensurePost(row);
      } catch (err) {
        logger.warn({ err, postId: id }, 'campaigns: the Post record will be stored by the sender');
      }
      nudge();
      return view(row);
    },

    /**
     * A draft as its mail would be (any member; a Sales member previews with their own customers),
     * with the number of recipients `customer_ids` or `group_id` would have now (null when neither is
     * given). Nothing is stored.
     */
    async preview(appId: string, callerId: number, input: DraftInput & Pick<CampaignInput, 'customer_ids' | 'group_id'>) {
      const m = await access.membership(appId, callerId);
      const draft = await renderDraft(appId, callerId, m.isManager, input);
      const recipients = await recipientsOf(appId, callerId, m.isManager, input);
      return {
        subject: draft.title,
        html: draft.html,
        text: draft.text,
        customerId: draft.customerId,
        recipientCount: recipients === null ? null : recipients.size,
      };
    },

    /**
     * Mails a draft, rendered as the preview renders it, to the caller's own account address, the
     * subject marked `[Test]`. Not a campaign: nothing is stored or counted. The routes limit how
     * often a user may call it.
     */
    async sendTest(appId: string, callerId: number, input: DraftInput): Promise<{ to: string; subject: string }> {
      const m = await access.membership(appId, callerId);
      if (!mailConfigured()) throw failure('mail_not_configured');
      const draft = await renderDraft(appId, callerId, m.isManager, input);
      const user = await accounts.userById(callerId);
      const to = user?.email?.trim() ?? '';
      if (to === '' || !isEmail(to)) throw failure('account_email_missing');
      const t = await mailer();
      if (t === null) throw failure('mail_not_configured');
      const subject = `${TEST_MARK} ${draft.title}`;
      try {
        await limiter();
        await t.sendMail({
          from: await fromOf(appId),
          to: user?.name ? { name: user.name, address: to } : to,
          subject,
          html: draft.html,
          text: draft.text,
          headers: { 'X-Rapport-Test': appId },
        });
      } catch (err) {
        const e = err as { response?: string; message?: string };
        logger.warn({ err, appId }, 'campaigns: a test mail was not sent');
        throw failure(
          'mail_send_failed',
          `The SMTP server did not take the test mail: ${(e.response ?? e.message ?? String(err)).slice(0, 300)}`,
        );
      }
      return { to, subject };
    },

    /** The campaign and its progress: recipients per state. */
    async get(appId: string, callerId: number, postId: string): Promise<CampaignView> {
      return view(await ownCampaign(appId, callerId, postId));
    },

    /** Pauses a sending campaign: mails being handed to SMTP finish; the queued ones wait. */
    async pause(appId: string, callerId: number, postId: string): Promise<CampaignView> {
      const c = await ownCampaign(appId, callerId, postId);
      if (!(await repo.setStatus(db, appId, c.id, ['active'], 'paused', clock.now()))) throw failure('post_state_invalid');
      return view((await repo.campaign(db, appId, c.id)) as CampaignRow);
    },

    async resume(appId: string, callerId: number, postId: string): Promise<CampaignView> {
      const c = await ownCampaign(appId, callerId, postId);
      if (!(await repo.setStatus(db, appId, c.id, ['paused'], 'active', clock.now()))) throw failure('post_state_invalid');
      nudge();
      return view((await repo.campaign(db, appId, c.id)) as CampaignRow);
    },

    /** Cancels a sending or paused campaign: its queued recipients are never mailed. */
    async cancel(appId: string, callerId: number, postId: string): Promise<CampaignView> {
      const c = await ownCampaign(appId, callerId, postId);
      const now = clock.now();
      const done = await db.transaction().execute(async (trx) => {
        if (!(await repo.setStatus(trx, appId, c.id, ['active', 'paused'], 'cancelled', now))) return false;
        await repo.cancelQueued(trx, appId, c.id);
        return true;
      });
      if (!done) throw failure('post_state_invalid');
      return view((await repo.campaign(db, appId, c.id)) as CampaignRow);
    },

    // ---- Tracking (public) ----

    /** An open: counted as a person's unless a mail proxy's or too soon after the send (then flagged as a machine's). */
    async open(token: string, req: TrackedRequest): Promise<void> {
      const { rec, campaign } = await recipientOf(token);
      const now = clock.now();
      const ua = req.userAgent ?? '';
      const machine =
        ctx.visitors.describe(ua, undefined).isBot ||
        MAIL_PROXY_UA.test(ua) ||
        isAppleAddress(req.ip) ||
        (rec.sent_at !== null && now - rec.sent_at < config.mailMachineOpenSeconds * 1000);
      if (machine) {
        await repo.count(db, rec.app_id, rec.id, 'machine_opens');
        return;
      }
      const n = (await repo.count(db, rec.app_id, rec.id, 'opens')) ?? 0;
      await repo.bumpPost(db, rec.app_id, campaign.id, { view_log_count: 1, view_log_user_count: n === 1 ? 1 : 0 });
      await writeBehaviour(campaign, [
        behaviour(`mail-open.${rec.id}.${n}`, rec.customer_id, 'mail_open', now, { postId: campaign.id, title: campaign.title }),
      ]);
    },

    /**
     * A click: the stored target of that position, with the signed `rapport_click` parameter
     * appended (the site snippet sends it back; a share link's viewer reads it). Counted unless a bot's.
     */
    async click(token: string, position: number, req: TrackedRequest): Promise<string> {
      const { rec, campaign } = await recipientOf(token);
      const target = await repo.link(db, rec.app_id, campaign.id, position);
      if (target === null) throw publicFailure('mail_token_invalid');
      if (!ctx.visitors.describe(req.userAgent, undefined).isBot) {
        const n = (await repo.count(db, rec.app_id, rec.id, 'clicks')) ?? 0;
        await repo.bumpPost(db, rec.app_id, campaign.id, { link_view_log_count: 1, link_view_log_user_count: n === 1 ? 1 : 0 });
        await writeBehaviour(campaign, [
          behaviour(`mail-click.${rec.id}.${n}`, rec.customer_id, 'mail_click', clock.now(), { postId: campaign.id, url: target }),
        ]);
      }
      const url = new URL(target);
      url.searchParams.set('rapport_click', signValue((await signingKeys()).click, { a: rec.app_id, r: rec.id }));
      return url.href;
    },

    /** What the unsubscribe page shows: the address (partly hidden) and whether it is already unsubscribed. */
    async unsubscribeInfo(token: string): Promise<{ address: string; unsubscribed: boolean }> {
      const { rec } = await recipientOf(token);
      const [local = '', domain = ''] = rec.email.split('@');
      const address = `${local.slice(0, 2)}${'*'.repeat(Math.max(1, local.length - 2))}@${domain}`;
      return { address, unsubscribed: (await repo.suppression(db, rec.app_id, rec.email_norm)) !== undefined };
    },

    /** Unsubscribes the recipient's address from the project's mail (RFC 8058 one-click, or the page's button). */
    async unsubscribe(token: string): Promise<void> {
      const { rec } = await recipientOf(token);
      await repo.suppress(db, rec.app_id, rec.email_norm, 'unsubscribe', `post ${rec.campaign_id}`, clock.now());
    },

    /**
     * The site-tracking service's resolver: verifies a `rapport_click` token; `countReturn` counts the
     * return visit it brings (return visits, and returning visitors once each) on the campaign's Post,
     * called once the visit is recorded.
     */
    resolveClick: (async (appId: string, token: string) => {
      const rec = await clickRecipient(appId, token);
      if (rec === undefined) return null;
      return {
        customerId: rec.customer_id,
        postId: rec.campaign_id,
        countReturn: async () => {
          const n = (await repo.count(db, appId, rec.id, 'returns')) ?? 0;
          await repo.bumpPost(db, appId, rec.campaign_id, { return_log_count: 1, return_log_user_count: n === 1 ? 1 : 0 });
        },
      };
    }) satisfies MailClickResolver,

    /** The customer a `rapport_click` token names, counting nothing (a share link's viewer ties its visitor to it). */
    identifyClick: (async (appId: string, token: string) => {
      const rec = await clickRecipient(appId, token);
      return rec === undefined ? null : { customerId: rec.customer_id, postId: rec.campaign_id };
    }) satisfies MailClickResolver,

    drain,

    /** Closes the SMTP pool (the sender's stop function does it too). */
    close(): void {
      transport?.close();
      transport = undefined;
    },

    /** Runs the sender until the returned function is called (each server process runs one). */
    start(): () => Promise<void> {
      if (!stopped) throw new Error('the campaign sender is already running');
      stopped = false;
      const loop = async () => {
        while (!stopped) {
          let n = 0;
          try {
            n = await pass();
          } catch (err) {
            logger.warn({ err }, 'campaigns: sending failed; will retry');
          }
          if (n === 0 && !stopped) {
            await new Promise<void>((resolve) => {
              const wake = () => {
                clearTimeout(timer);
                wakers.delete(wake);
                resolve();
              };
              const timer = setTimeout(wake, Date.now() < smtpDownUntil ? smtpDownUntil - Date.now() : POLL_MS);
              wakers.add(wake);
            });
          }
        }
      };
      running = Promise.all(Array.from({ length: LOOPS }, loop)).then(() => undefined);
      return async () => {
        stopped = true;
        nudge();
        await running;
        running = null;
        transport?.close();
      };
    },
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
