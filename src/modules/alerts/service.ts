import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import { customerVisibilityReadModel } from '../customers/service.ts';
import type { AlertsDeps } from './common.ts';
import { createEvaluator } from './evaluator.service.ts';
import { createPlaybookNotices } from './notices.service.ts';
import { createInboxRepository } from './inbox.repository.ts';
import { createInbox } from './inbox.service.ts';
import { createAlertMail } from './mail.service.ts';
import { type MembershipsOf, createAlertSettings } from './settings.service.ts';

export type { AlertMailer, AlertsDeps } from './common.ts';
export type { AlertCaller, AlertSettings, FirstOpenMailChoice, MembershipsOf } from './settings.service.ts';
// What the links module asks before its first-open e-mail (built before the links, by the composition root).
export { createFirstOpenMailChoice } from './settings.service.ts';
export type { Inbox, InboxQuery } from './inbox.service.ts';
export type { Evaluator, PassResult } from './evaluator.service.ts';
export type { AlertMail } from './mail.service.ts';
export type { NoticeOutcome, PlaybookNotice, PlaybookNotices } from './notices.service.ts';
export type { SettingsInput } from './settings.ts';
// The hot-lead source's event (sources.ts): the one place to wire hot leads in.
export { HOT_LEAD_EVENT } from './sources.ts';
// Alerts follow their customer: the merge job's moves and erasure's steps, built by the composition root.
export { type AlertErasure, type AlertMergeMoves, createAlertErasure, createAlertMergeMoves } from './erasure.service.ts';

/**
 * Alerts where salespeople are (docs/alerts.md), one service per kind of caller:
 * - `settings`: a member's notification settings (`GET`/`PUT /api/v1.7/user/notification-settings`);
 * - `inbox`: the console's inbox (`/api/v1.7/notifications`);
 * - `evaluator`: the background pass that turns the feed's events into signals and tells them
 *   (job `alert-evaluate`; `pass()` for tests);
 * - `mail`: instant e-mails and daily digests (jobs `alert-mail`, `alert-digest`; `sendInstant()`,
 *   `sendDigests()` for tests). The evaluator pokes the mailer when it queued mail.
 * Chat channels are the webhooks module's (`createNotificationChannels`), given here as `channels`.
 */
export function createAlertsServices(ctx: AppContext, deps: AlertsDeps & { memberships: MembershipsOf; defineJob: DefineJob }) {
  const inboxRepo = createInboxRepository(customerVisibilityReadModel);
  const mail = createAlertMail(ctx, deps, inboxRepo, deps.memberships);
  const mailJob = deps.defineJob(mail.mailJob);
  deps.defineJob(mail.digestJob);
  const evaluator = createEvaluator(ctx, deps, { mailQueued: () => mailJob.poke() });
  deps.defineJob(evaluator.job);
  return {
    settings: createAlertSettings(ctx, { memberships: deps.memberships, inbox: inboxRepo }),
    inbox: createInbox(ctx, inboxRepo, deps.memberships),
    evaluator,
    mail,
    /** Playbooks' notices, told in the playbook's transaction (the playbooks module's `notify`). */
    notices: createPlaybookNotices(ctx, deps, { mailQueued: () => mailJob.poke() }),
  };
}

export type AlertsServices = ReturnType<typeof createAlertsServices>;
