import type { AppContext } from '../../context.ts';
import type { Job, JobDefinition } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { HistoriesService } from '../histories/service.ts';
import type { IngestService } from '../ingest/service.ts';
import type { LinkReads } from '../links/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import { createCampaignAdditions } from './additions.service.ts';
import { createCampaignComposer } from './compose.service.ts';
import { createCampaignRecords } from './records.ts';
import { createCampaignSender } from './sender.ts';
import { createSequenceMail } from './sequence-mail.service.ts';
import { createCampaignTokens } from './tokens.ts';
import { createCampaignTracking } from './tracking.service.ts';
import { type MailTransport, createCampaignTransport } from './transport.ts';

export type { AdditionFailure, CampaignAdditions } from './additions.service.ts';
export type { CampaignComposer } from './compose.service.ts';
// What erasure needs of the campaigns' tables, built by the composition root for it.
export { type CampaignErasure, createCampaignErasure } from './erasure.service.ts';
// What the sequences' funnel joins (the recipients' opens and clicks), in its own statement.
export { mailEngagementReadModel } from './engagement.repository.ts';
export type { MailEngagementReadModel } from './mapper.ts';
export type { CampaignSender } from './sender.ts';
export type { PreparedStep, SequenceMail, SequenceStepMail } from './sequence-mail.service.ts';
export type { CampaignTracking, MailClickResolver, TrackedRequest } from './tracking.service.ts';
export type { CampaignTransport, MailTransport } from './transport.ts';

/**
 * E-mail campaigns (docs/campaigns.md), one service per caller: the composer (members make, preview,
 * test and steer campaigns), the sender (a background job that mails the durable per-recipient queue)
 * and tracking (recipients' mail clients and browsers: opens, clicks, unsubscribes); `additions` and
 * `sequenceMail` queue recipients in other modules' transactions (the bulk module, the sequences runner). They share the
 * SMTP transport, the signed tracking tokens and the records written through ingestion.
 */
export function createCampaignServices(
  ctx: AppContext,
  deps: {
    access: AccessService;
    accounts: AccountsService;
    ingest: IngestService;
    /**
     * A mail's From display name (the project's name), and where the project's public addresses start
     * (its share domain, else PUBLIC_BASE_URL): the mails' tracking and unsubscribe addresses, its share links.
     */
    projects: Pick<ProjectsService, 'name' | 'shareDomains'>;
    /** The recipients: live customers by id or group. */
    customers: Pick<CustomersService, 'mailRecipients'>;
    /** The share link a campaign's mail links to (its material). */
    links: LinkReads;
    /** The campaign's Post record and its counters. */
    histories: Pick<HistoriesService, 'postExists' | 'addToPostCounters'>;
    /** Defines the sender's job where this process sends (MAIL_WORKER); null leaves sending to others. */
    defineJob: ((def: JobDefinition) => Job) | null;
    /** The SMTP transport; by default nodemailer's pool on SMTP_URL (none without it). */
    transport?: MailTransport | null;
  },
) {
  const transport = createCampaignTransport(ctx, deps.projects, deps.transport);
  const tokens = createCampaignTokens(ctx);
  const records = createCampaignRecords(ctx, deps);
  const sender = createCampaignSender(ctx, { transport, tokens, records, publicBase: deps.projects.shareDomains.publicBase });
  const job = deps.defineJob?.(sender.job) ?? null;
  const composer = createCampaignComposer(ctx, { ...deps, transport, records, nudge: () => job?.poke() });
  const tracking = createCampaignTracking(ctx, { tokens, records });
  const additions = createCampaignAdditions(ctx, deps);
  // The sequences runner's e-mail steps: one recipient row queued in the runner's transaction.
  const sequenceMail = createSequenceMail(ctx, { nudge: () => job?.poke() });
  return { composer, sender, tracking, transport, additions, sequenceMail };
}
