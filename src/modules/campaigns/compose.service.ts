import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure, fieldFailure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { ShareDomains } from '../projects/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { LinkReads } from '../links/service.ts';
import { type CampaignRow, type CampaignView, type RecipientCustomer, toCampaign } from './mapper.ts';
import type { CampaignRecords } from './records.ts';
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
import type { CampaignTransport } from './transport.ts';

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
/** Recipients a campaign may have at most. */
export const MAX_RECIPIENTS = 100_000;
/** The HTML body, at most (characters). */
export const MAX_HTML = 512 * 1024;

const splitIds = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : (v ?? '').split(',')).map((s) => s.trim()).filter((s) => s !== '');

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
 * E-mail campaigns as members make and steer them (docs/campaigns.md): drafts previewed and test-mailed,
 * campaigns created with their recipients queued in the database, read, paused, resumed and
 * cancelled. The sender (sender.ts) mails the queue; tracking (tracking.service.ts) counts what
 * recipients do.
 */
export function createCampaignComposer(
  ctx: AppContext,
  deps: {
    access: AccessService;
    accounts: AccountsService;
    customers: Pick<CustomersService, 'mailRecipients'>;
    links: LinkReads;
    transport: CampaignTransport;
    records: CampaignRecords;
    nudge: () => void;
    /** Where the project's public addresses start: its share links may be at either. */
    projects: { shareDomains: Pick<ShareDomains, 'publicBases'> };
  },
) {
  const { access, accounts, customers, links, transport, records, nudge } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;

  /**
   * The recipients `customer_ids` or `group_id` name, one customer per normalised address: live
   * customers the caller may mail (a Sales member: their own), with a valid address not suppressed.
   * Null when neither is given. A customer named by id that the caller may not see is refused, as
   * an unknown one is.
   */
  async function recipientsOf(
    appId: string,
    ownerId: number | null,
    input: Pick<CampaignInput, 'customer_ids' | 'group_id'>,
  ): Promise<Map<string, RecipientCustomer> | null> {
    const ids = splitIds(input.customer_ids);
    const groupId = (input.group_id ?? '').trim();
    if (ids.length === 0 && groupId === '') return null;
    if (ids.length > 0 && groupId !== '') throw fieldFailure('customer_ids', 'invalid', 'give customer_ids or group_id, not both');
    if (ids.length > MAX_RECIPIENTS) throw fieldFailure('customer_ids', 'invalid', `at most ${MAX_RECIPIENTS} customers`);
    const badId = [...ids, groupId].find((id) => id.length > 64 || id.includes('\u0000'));
    if (badId !== undefined) throw failure(ids.includes(badId) ? 'customer_not_found' : 'group_not_found');
    const found = await customers.mailRecipients(appId, ids.length > 0 ? { ids: [...new Set(ids)], ownerId } : { groupId, ownerId });
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
  async function renderDraft(appId: string, ownerId: number | null, input: DraftInput) {
    const { title, prepared } = checkDraft(input);
    const customerId = (input.customer_id ?? '').trim();
    let values: MergeValues = SAMPLE_VALUES;
    if (customerId !== '') {
      if (customerId.length > 64 || customerId.includes('\u0000')) throw failure('customer_not_found');
      const [c] = await customers.mailRecipients(appId, { ids: [customerId], ownerId });
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

  /**
   * The share link a campaign's mail links to, if one of its targets is one of the project's share
   * links, at PUBLIC_BASE_URL or at the project's share domain.
   */
  async function materialLink(appId: string, targets: string[]): Promise<string | null> {
    const prefixes = (await deps.projects.shareDomains.publicBases(appId)).map((base) => `${base}/l/`);
    const shareTokens = targets
      .filter((t) => prefixes.some((prefix) => t.startsWith(prefix)))
      .map((t) => new URL(t).pathname.split('/')[2] ?? '')
      .filter((t) => t !== '');
    return links.idByShareToken(appId, shareTokens);
  }

  /** Stores a campaign, its tracked links and its queued recipients in one transaction. */
  async function store(row: CampaignRow, targets: string[], byAddress: Map<string, RecipientCustomer>): Promise<void> {
    const { app_id: appId, id, created_at: now } = row;
    await db.transaction().execute((trx) =>
      repo.insertCampaign(
        trx,
        row,
        targets.map((url, position) => ({ app_id: appId, campaign_id: id, position, url })),
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
  }

  function sendTime(input: CampaignInput, now: number): number {
    if (input.send_at === undefined || input.send_at.trim() === '') return now;
    const parsed = clock.parse(input.send_at.trim());
    if (parsed === null) throw fieldFailure('send_at', 'invalid', 'send_at is yyyy-MM-dd HH:mm:ss, or ISO 8601 with an offset');
    return parsed;
  }

  async function ownCampaign(appId: string, callerId: number, postId: string): Promise<CampaignRow> {
    const m = await access.membership(appId, callerId);
    const c = await repo.campaign(db, appId, postId);
    if (c === undefined || (!m.isManager && c.owner_id !== callerId)) throw failure('post_not_found');
    return c;
  }

  async function view(c: CampaignRow): Promise<CampaignView> {
    return toCampaign(c, await repo.stateCounts(db, c.app_id, c.id), (ms) => clock.format(ms));
  }

  /** Moves a campaign of the caller's from one of `from` to `to`; `post_state_invalid` otherwise. */
  async function steer(appId: string, callerId: number, postId: string, move: { from: string[]; to: string }): Promise<CampaignView> {
    const { from, to } = move;
    const c = await ownCampaign(appId, callerId, postId);
    const now = clock.now();
    const done = await db.transaction().execute(async (trx) => {
      if (!(await repo.setStatus(trx, appId, c.id, from, to, now))) return false;
      // A cancelled campaign's queued recipients are never mailed.
      if (to === 'cancelled') await repo.cancelQueued(trx, appId, c.id);
      return true;
    });
    if (!done) throw failure('post_state_invalid');
    if (to === 'active') nudge();
    return view((await repo.campaign(db, appId, c.id)) as CampaignRow);
  }

  return {
    /** Creates a campaign (any member; a Sales member mails only their own customers) and queues its recipients. */
    async create(appId: string, callerId: number, input: CampaignInput): Promise<CampaignView> {
      const m = await access.membership(appId, callerId);
      if (!transport.configured()) throw failure('mail_not_configured');
      const { title, prepared } = checkDraft(input);
      const now = clock.now();
      const sendAt = sendTime(input, now);
      const byAddress = await recipientsOf(appId, m.isManager ? null : callerId, input);
      if (byAddress === null) throw fieldFailure('customer_ids', 'required', 'customer_ids or group_id is required');
      if (byAddress.size === 0) throw failure('no_recipients');
      if (byAddress.size > MAX_RECIPIENTS) throw fieldFailure('group_id', 'invalid', `a campaign has at most ${MAX_RECIPIENTS} recipients`);
      const row: CampaignRow = {
        id: timeOrderedUuid(now),
        app_id: appId,
        owner_id: callerId,
        title,
        html: prepared.html,
        status: 'active',
        send_at: sendAt,
        material_link_id: await materialLink(appId, prepared.targets),
        recipient_count: byAddress.size,
        created_at: now,
        updated_at: now,
        finished_at: null,
      };
      await store(row, prepared.targets, byAddress);
      // The Post record now, so that the list shows the campaign at once; the sender stores it too if this fails.
      try {
        await records.ensurePost(row);
      } catch (err) {
        logger.warn({ err, postId: row.id }, 'campaigns: the Post record will be stored by the sender');
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
      const ownerId = m.isManager ? null : callerId;
      const draft = await renderDraft(appId, ownerId, input);
      const recipients = await recipientsOf(appId, ownerId, input);
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
      if (!transport.configured()) throw failure('mail_not_configured');
      const draft = await renderDraft(appId, m.isManager ? null : callerId, input);
      const user = await accounts.userById(callerId);
      const to = user?.email?.trim() ?? '';
      if (to === '' || !isEmail(to)) throw failure('account_email_missing');
      const t = await transport.mailer();
      if (t === null) throw failure('mail_not_configured');
      const subject = `${TEST_MARK} ${draft.title}`;
      try {
        await transport.turn();
        await t.sendMail({
          from: await transport.from(appId),
          to: user?.name ? { name: user.name, address: to } : to,
          subject,
          html: draft.html,
          text: draft.text,
          headers: { 'X-Rapport-Test': appId },
        });
      } catch (err) {
        const e = err as { response?: string; message?: string };
        logger.warn({ err, appId }, 'campaigns: a test mail was not sent');
        const why = (e.response ?? e.message ?? String(err)).slice(0, 300);
        throw failure('mail_send_failed', `The SMTP server did not take the test mail: ${why}`);
      }
      return { to, subject };
    },

    /** The campaign and its progress: recipients per state. */
    async get(appId: string, callerId: number, postId: string): Promise<CampaignView> {
      return view(await ownCampaign(appId, callerId, postId));
    },

    /** Pauses a sending campaign: mails being handed to SMTP finish; the queued ones wait. */
    pause: (appId: string, callerId: number, postId: string) => steer(appId, callerId, postId, { from: ['active'], to: 'paused' }),

    resume: (appId: string, callerId: number, postId: string) => steer(appId, callerId, postId, { from: ['paused'], to: 'active' }),

    /** Cancels a sending or paused campaign: its queued recipients are never mailed. */
    cancel: (appId: string, callerId: number, postId: string) =>
      steer(appId, callerId, postId, { from: ['active', 'paused'], to: 'cancelled' }),
  };
}

export type CampaignComposer = ReturnType<typeof createCampaignComposer>;
