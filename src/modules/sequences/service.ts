import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import type { SequenceMail } from '../campaigns/service.ts';
import { type CustomersService, customerVisibilityReadModel } from '../customers/service.ts';
import type { FileViewer } from '../files/service.ts';
import type { LinkReads } from '../links/service.ts';
import { createSequenceAutomation } from './automation.service.ts';
import { createSequenceDefinitions } from './definitions.service.ts';
import { createEnroller } from './enroll.ts';
import { createEnrollmentsRepository } from './enrollments.repository.ts';
import { createEnrollmentService } from './enrollments.service.ts';
import { type FeedHandler, createFeedExits, createSequenceFeed } from './feed.service.ts';
import { createSequenceFunnel } from './funnel.service.ts';
import { createInboundMail } from './inbound.service.ts';
import { createLifecycle } from './lifecycle.ts';
import { createSequenceJumps } from './jumps.service.ts';
import { type RunnerDeps, createSequenceRunner } from './runner.service.ts';
import { createSequenceSettings } from './settings.service.ts';

export type { SequenceAutomation, EnrollFailure } from './automation.service.ts';
export type { SequenceDefinitions } from './definitions.service.ts';
export type { EnrollmentService, ManualExit } from './enrollments.service.ts';
export type { FeedHandler, SequenceFeed, SequenceFeedEvent } from './feed.service.ts';
export type { Funnel, FunnelStep, SequenceFunnel } from './funnel.service.ts';
export type { InboundMail } from './inbound.service.ts';
export type { SequenceRunner } from './runner.service.ts';
export type { SequenceSettings, SettingsInput } from './settings.service.ts';
export type { DefinitionInput } from './steps.ts';
export type { EnrollmentResponse, ExitReason, SequenceResponse, SettingsResponse, VersionResponse } from './mapper.ts';
// Enrolments follow their customer: the merge job's moves and erasure's steps, built by the composition root.
export { type SequenceErasure, type SequenceMergeMoves, createSequenceErasure, createSequenceMergeMoves } from './erasure.service.ts';

/** What the sequences module is built with (src/services.ts). */
export interface SequencesDeps {
  access: Pick<AccessService, 'memberRecord'>;
  customers: Pick<CustomersService, 'visibleLive' | 'liveCustomers' | 'mailRecipients' | 'fieldValueOf'>;
  /** Links' names and directions, and views' pages read (the deck jump). */
  links: Pick<LinkReads, 'alertLinks' | 'readings'>;
  /** What the runner's steps go through: the campaigns' queue, the tasks, customers' own links, members' names, decks' page counts. */
  running: Pick<RunnerDeps, 'tasks' | 'ownLinks' | 'accounts'> & {
    /** The campaigns' queue, and its template check (a step's HTML is refused when the sequence is saved). */
    mail: RunnerDeps['mail'] & Pick<SequenceMail, 'templateProblem'>;
    files: Pick<FileViewer, 'viewerFile'>;
  };
  defineJob: DefineJob;
}

/**
 * Sequences (docs/sequences.md, ADR 0040), one service per kind of caller:
 * - `settings`: a project's send settings (Master and Admins);
 * - `definitions`: sequences and their versions (members); `funnel`: a sequence's funnel;
 * - `enrollments`: a sequence's and a customer's enrolments, pause, resume, exit, replied (members);
 * - `automation`: enrolment and exits as other modules drive them (the bulk job's action `enroll`,
 *   the playbooks' `enrollOne` and `exitCustomer`), in their transaction;
 * - `inbound`: the inbound mail webhook (replies);
 * - `feed`: the reader of the feed (job `sequence-feed`): exits on unsubscribe, bounce, a form
 *   filled in, the customer deleted;
 * - `runner`: the job `sequence-runner`: each due enrolment's step placed in the send window or run
 *   (the mail queued through the campaigns, the task made), and the deck jump read from the feed.
 */
export function createSequenceServices(ctx: AppContext, deps: SequencesDeps) {
  const repo = createEnrollmentsRepository(ctx.database.features, customerVisibilityReadModel);
  const lifecycle = createLifecycle(ctx, repo);
  const enroller = createEnroller(ctx, { access: deps.access, enrollments: repo, lifecycle });
  const settings = createSequenceSettings(ctx);
  const definitions = createSequenceDefinitions(ctx, { links: deps.links, templates: deps.running.mail, enrollments: repo, lifecycle });
  const enrollments = createEnrollmentService(ctx, { customers: deps.customers, definitions, enrollments: repo, lifecycle, enroller });
  const automation = createSequenceAutomation(ctx, { customers: deps.customers, enroller, lifecycle });
  const inbound = createInboundMail(ctx, { settings, customers: deps.customers, lifecycle });
  const funnel = createSequenceFunnel(ctx, { definitions });

  const feedHandlers: FeedHandler[] = [createFeedExits(lifecycle)];
  const feed = createSequenceFeed(ctx, feedHandlers);
  deps.defineJob(feed.job);
  // The runner (job sequence-runner): steps run in the window, and the deck jump read from its own cursor.
  const jumps = createSequenceJumps(ctx, { links: deps.links, files: deps.running.files, lifecycle });
  const runner = createSequenceRunner(ctx, { ...deps.running, settings, lifecycle, customers: deps.customers, jumps });
  deps.defineJob(runner.job);
  return { settings, definitions, enrollments, funnel, automation, inbound, feed, runner };
}

export type SequenceServices = ReturnType<typeof createSequenceServices>;
