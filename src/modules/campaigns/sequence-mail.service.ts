import { createHash } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { isEmail } from '../../lib/formats.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import {
  type MergeValues,
  type PreparedTemplate,
  SEQUENCE_MERGE_FIELDS,
  TemplateError,
  normaliseEmail,
  prepareTemplate,
} from './render.ts';
import { campaignsRepository as repo } from './repository.ts';
import { sequenceMailRepository as steps } from './sequence-mail.repository.ts';

/** A sequence's e-mail step for one customer, as the sequences runner hands it over. */
export interface SequenceStepMail {
  appId: string;
  /** The step's campaign: one per sequence, version and step. */
  sequenceId: string;
  version: number;
  step: number;
  /** Who the step's campaign (its Post record) belongs to: the sequence's author. */
  campaignOwnerId: number;
  /** The subject and the HTML template (with the sequences' merge fields). */
  title: string;
  html: string;
  /** The sequence's deck: the mail counts as that material sent (`send_data_by_mail`). */
  materialLinkId: string | null;
  customer: { id: string; name: string | null; email: string | null; company: string | null; title: string | null; phone: string | null };
  /** The sending member's name and the customer's own link. */
  ownerName: string | null;
  ownLink: string | null;
  now: number;
}

/** A step's mail ready to be queued (its recipient row), or why it is skipped. */
export type PreparedStep =
  | { outcome: 'queued'; mailId: string; recipient: Insertable<Database['campaign_recipients']>; now: number }
  | { outcome: 'skipped'; detail: 'no_email' | 'suppressed' | 'template_invalid' };

/** The step campaign's id: the same for every customer of the step, in every process (a name-based UUID). */
export function stepCampaignId(appId: string, sequenceId: string, version: number, step: number): string {
  const h = createHash('sha256').update(`sequence-step\u0000${appId}\u0000${sequenceId}\u0000${version}\u0000${step}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A sequence's e-mail steps through the campaigns' queue (docs/sequences.md "Running"): each step of
 * a sequence version is a campaign of its own (its Post record counts the step's sends, opens and
 * clicks), made by the first customer who reaches it; each customer's mail is one recipient row
 * queued in the runner's transaction, so the campaign sender sends it with its crash-safe states,
 * tracked opens and clicks and RFC 8058 unsubscribe. A step campaign that had sent everything (`done`)
 * is active again with a new recipient; one a member paused keeps its mails waiting, one cancelled
 * never sends them (they are queued `cancelled`).
 */
export function createSequenceMail(ctx: AppContext, deps: { nudge: () => void }) {
  /** Step campaigns this process has seen stored (committed): not looked for again. */
  const known = new Set<string>();
  async function exists(trx: Kysely<Database>, appId: string, campaignId: string): Promise<boolean> {
    if (known.has(campaignId)) return true;
    if (!(await steps.exists(trx, appId, campaignId))) return false;
    if (known.size >= 10_000) known.clear();
    known.add(campaignId);
    return true;
  }

  return {
    /** The template's problem (an unknown merge field, `{{#`, too many links), or null: what a step's html is checked with. */
    templateProblem(html: string): string | null {
      try {
        prepareTemplate(html, SEQUENCE_MERGE_FIELDS);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    },

    /**
     * The step's mail to the customer, in the caller's transaction: its campaign made if it is the
     * step's first, its recipient row built; skipped without a valid address, when it is suppressed, or
     * when the template names a merge field the campaigns do not know. `enqueue` writes it.
     */
    async prepare(trx: Kysely<Database>, m: SequenceStepMail): Promise<PreparedStep> {
      const email = m.customer.email?.trim() ?? '';
      if (email === '' || !isEmail(email)) return { outcome: 'skipped', detail: 'no_email' };
      const norm = normaliseEmail(email);
      if ((await repo.suppressed(trx, m.appId, [norm])).size > 0) return { outcome: 'skipped', detail: 'suppressed' };
      const campaignId = stepCampaignId(m.appId, m.sequenceId, m.version, m.step);
      if (!(await exists(trx, m.appId, campaignId))) {
        let prepared: PreparedTemplate;
        try {
          prepared = prepareTemplate(m.html, SEQUENCE_MERGE_FIELDS);
        } catch (err) {
          if (err instanceof TemplateError) return { outcome: 'skipped', detail: 'template_invalid' };
          throw err;
        }
        await steps.insertCampaign(
          trx,
          {
            id: campaignId,
            app_id: m.appId,
            owner_id: m.campaignOwnerId,
            title: m.title,
            html: prepared.html,
            status: 'active',
            send_at: m.now,
            material_link_id: m.materialLinkId,
            recipient_count: 0,
            created_at: m.now,
            updated_at: m.now,
          },
          prepared.targets.map((url, position) => ({ app_id: m.appId, campaign_id: campaignId, position, url })),
        );
      }
      const c = m.customer;
      const fields: MergeValues = {
        name: c.name,
        email: c.email,
        company: c.company,
        title: c.title,
        phone: c.phone,
        owner_name: m.ownerName,
        own_link: m.ownLink,
      };
      const mailId = timeOrderedUuid(m.now);
      const recipient = {
        id: mailId,
        app_id: m.appId,
        campaign_id: campaignId,
        customer_id: c.id,
        email,
        email_norm: norm,
        fields: JSON.stringify(fields),
        state: 'queued',
        opens: 0,
        machine_opens: 0,
        clicks: 0,
        returns: 0,
        created_at: m.now,
      };
      return { outcome: 'queued', mailId, recipient, now: m.now };
    },

    /**
     * Queues a prepared mail in the caller's transaction. Its last statement takes the step campaign's
     * row (counted, active again if it had sent everything): the caller writes everything else of its
     * transaction before, so that the row, which every step's mail shares, is held only until the commit.
     */
    async enqueue(trx: Kysely<Database>, mail: Extract<PreparedStep, { outcome: 'queued' }>): Promise<void> {
      const status = await steps.addRecipient(trx, mail.recipient, mail.now);
      if (status === 'cancelled')
        ctx.logger.info({ campaignId: mail.recipient.campaign_id }, 'sequences: a step campaign was cancelled; its new mail is not sent');
    },

    /** Tells this process's sender that mail was queued (after the caller's transaction committed). */
    nudge: deps.nudge,
  };
}

export type SequenceMail = ReturnType<typeof createSequenceMail>;
