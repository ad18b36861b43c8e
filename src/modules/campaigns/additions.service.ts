import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { CustomersService } from '../customers/service.ts';
import { campaignAdditionsRepository as additions } from './additions.repository.ts';
import { MAX_RECIPIENTS } from './compose.service.ts';
import type { CampaignRow } from './mapper.ts';
import { normaliseEmail } from './render.ts';
import { campaignsRepository as repo } from './repository.ts';

/** A customer that could not be added, and why. */
export interface AdditionFailure {
  customerId: string;
  code: string;
  reason: string;
}

/** Whether customers may still be added: the campaign has not started sending (scheduled for later, or paused). */
function open(c: CampaignRow, now: number): boolean {
  return c.status === 'paused' || (c.status === 'active' && Number(c.send_at) > now);
}

/**
 * Customers added to a campaign after it was made (the bulk module's "add to a campaign",
 * docs/campaigns.md): only to a campaign the actor may steer (a Sales member: their own) that has
 * not started sending. Each customer is queued once per address, as on create: one without a valid
 * address, or whose address is unsubscribed or bounced, fails on its own; one whose address the
 * campaign already mails counts as added.
 */
export function createCampaignAdditions(ctx: AppContext, deps: { customers: Pick<CustomersService, 'mailRecipients'> }) {
  const db: Kysely<Database> = ctx.database.db;

  async function openCampaign(executor: Kysely<Database>, actor: Actor, postId: string, now: number): Promise<CampaignRow> {
    const c = postId.length > 64 ? undefined : await repo.campaign(executor, actor.app.id, postId);
    if (c === undefined || (!actor.isManager && c.owner_id !== actor.userId)) throw failure('post_not_found');
    if (!open(c, now)) throw failure('post_not_open');
    return c;
  }

  return {
    /** The campaign, checked before a bulk job is started (`post_not_found`, `post_not_open`). */
    async check(actor: Actor, postId: string): Promise<void> {
      await openCampaign(db, actor, postId, ctx.clock.now());
    },

    /** Queues these customers (ones the actor may see, live) as the campaign's recipients, in the caller's transaction. */
    async addInTransaction(
      trx: Kysely<Database>,
      actor: Actor,
      input: { postId: string; customerIds: string[]; now: number },
    ): Promise<{ done: string[]; failures: AdditionFailure[] }> {
      const { now } = input;
      const appId = actor.app.id;
      const c = await openCampaign(trx, actor, input.postId, now);
      const found = await deps.customers.mailRecipients(appId, { ids: input.customerIds, ownerId: null }, trx);
      const byId = new Map(found.map((r) => [r.id, r]));
      const norms = found.filter((r) => r.email !== null && isEmail(r.email.trim())).map((r) => normaliseEmail(r.email as string));
      const suppressed = await repo.suppressed(trx, appId, norms);
      const mailed = await additions.addressesIn(trx, appId, c.id, norms);
      const done: string[] = [];
      const failures: AdditionFailure[] = [];
      const rows = [];
      for (const id of input.customerIds) {
        const r = byId.get(id);
        const email = r?.email?.trim() ?? '';
        const norm = email !== '' && isEmail(email) ? normaliseEmail(email) : null;
        if (r === undefined) failures.push({ customerId: id, code: 'customer_not_found', reason: 'No such customer' });
        else if (norm === null)
          failures.push({ customerId: id, code: 'no_recipients', reason: 'The customer has no valid e-mail address' });
        else if (suppressed.has(norm))
          failures.push({ customerId: id, code: 'no_recipients', reason: 'The address unsubscribed or bounced' });
        else if (mailed.has(norm)) done.push(id);
        else if (Number(c.recipient_count) + rows.length >= MAX_RECIPIENTS)
          failures.push({ customerId: id, code: 'bulk_too_many', reason: `A campaign has at most ${MAX_RECIPIENTS} recipients` });
        else {
          mailed.add(norm);
          done.push(id);
          rows.push({
            id: timeOrderedUuid(now),
            app_id: appId,
            campaign_id: c.id,
            customer_id: r.id,
            email,
            email_norm: norm,
            fields: JSON.stringify({ name: r.name, email: r.email, company: r.company, title: r.title, phone: r.phone }),
            state: 'queued',
            opens: 0,
            machine_opens: 0,
            clicks: 0,
            returns: 0,
            created_at: now,
          });
        }
      }
      if (rows.length > 0) await additions.addRecipients(trx, appId, c.id, rows, now);
      return { done, failures };
    },
  };
}

export type CampaignAdditions = ReturnType<typeof createCampaignAdditions>;
