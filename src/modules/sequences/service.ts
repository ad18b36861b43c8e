import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import { type CustomersService, customerVisibilityReadModel } from '../customers/service.ts';
import type { LinkReads } from '../links/service.ts';
import { createSequenceAutomation } from './automation.service.ts';
import { createSequenceDefinitions } from './definitions.service.ts';
import { createEnroller } from './enroll.ts';
import { createEnrollmentsRepository } from './enrollments.repository.ts';
import { createEnrollmentService } from './enrollments.service.ts';
import { type FeedHandler, createFeedExits, createSequenceFeed } from './feed.service.ts';
import { createInboundMail } from './inbound.service.ts';
import { createLifecycle } from './lifecycle.ts';
import { createSequenceSettings } from './settings.service.ts';

export type { SequenceAutomation, EnrollFailure } from './automation.service.ts';
export type { SequenceDefinitions } from './definitions.service.ts';
export type { EnrollmentService, ManualExit } from './enrollments.service.ts';
export type { FeedHandler, SequenceFeed, SequenceFeedEvent } from './feed.service.ts';
export type { InboundMail } from './inbound.service.ts';
export type { SequenceSettings, SettingsInput } from './settings.service.ts';
export type { DefinitionInput } from './steps.ts';
export type { EnrollmentResponse, ExitReason, SequenceResponse, SettingsResponse, VersionResponse } from './mapper.ts';
// Enrolments follow their customer: the merge job's moves and erasure's steps, built by the composition root.
export { type SequenceErasure, type SequenceMergeMoves, createSequenceErasure, createSequenceMergeMoves } from './erasure.service.ts';

/** What the sequences module is built with (src/services.ts). */
export interface SequencesDeps {
  access: Pick<AccessService, 'memberRecord'>;
  customers: Pick<CustomersService, 'visibleLive' | 'liveCustomers' | 'mailRecipients'>;
  links: Pick<LinkReads, 'alertLinks'>;
  defineJob: DefineJob;
}

/**
 * Sequences (docs/sequences.md, ADR 0040), one service per kind of caller:
 * - `settings`: a project's send settings (Master and Admins);
 * - `definitions`: sequences and their versions (members);
 * - `enrollments`: a sequence's and a customer's enrolments, pause, resume, exit, replied (members);
 * - `automation`: enrolment and exits as other modules drive them (the bulk job's action `enroll`,
 *   the playbooks' `enrollOne` and `exitCustomer`), in their transaction;
 * - `inbound`: the inbound mail webhook (replies);
 * - `feed`: the reader of the feed (job `sequence-feed`): exits on unsubscribe, bounce, a form
 *   filled in, the customer deleted.
 */
export function createSequenceServices(ctx: AppContext, deps: SequencesDeps) {
  const repo = createEnrollmentsRepository(ctx.database.features, customerVisibilityReadModel);
  const lifecycle = createLifecycle(ctx, repo);
  const enroller = createEnroller(ctx, { access: deps.access, enrollments: repo, lifecycle });
  const settings = createSequenceSettings(ctx);
  const definitions = createSequenceDefinitions(ctx, { links: deps.links, enrollments: repo, lifecycle });
  const enrollments = createEnrollmentService(ctx, { customers: deps.customers, definitions, enrollments: repo, lifecycle, enroller });
  const automation = createSequenceAutomation(ctx, { customers: deps.customers, enroller, lifecycle });
  const inbound = createInboundMail(ctx, { settings, customers: deps.customers, lifecycle });

  // ---- The runner: built here (its job `sequence-runner`), and its feed handler (the deck jump) added to the reader's. ----
  const feedHandlers: FeedHandler[] = [createFeedExits(lifecycle)];

  const feed = createSequenceFeed(ctx, feedHandlers);
  deps.defineJob(feed.job);
  return { settings, definitions, enrollments, automation, inbound, feed };
}

export type SequenceServices = ReturnType<typeof createSequenceServices>;
