import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { bulkEventWriter } from '../../events/outbox.ts';
import type { Clock } from '../../lib/time.ts';
import type { PreparedStep, SequenceMail } from '../campaigns/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { OwnLinks } from '../links/service.ts';
import type { TaskService } from '../tasks/service.ts';
import type { Lifecycle } from './lifecycle.ts';
import { type EnrollmentRow, type Step, type VersionRow, stepsOf } from './mapper.ts';
import { capLockKey, runnerRepository as repo } from './runner.repository.ts';
import { type SendWindow, capDay, dueAfter, nextInWindow } from './schedule.ts';

/** An enrolment whose customer is no longer live (its exit or merge move not yet made) is looked at again after this. */
const GONE_RETRY_MS = 60 * 60_000;

/** What running a step needs of other services (the runner's loop needs more: runner.service.ts). */
export interface StepDeps {
  lifecycle: Lifecycle;
  mail: Pick<SequenceMail, 'prepare' | 'enqueue'>;
  tasks: Pick<TaskService, 'createInTransaction'>;
  ownLinks: OwnLinks;
}

type Customer = Awaited<ReturnType<CustomersService['mailRecipients']>>[number];

/** What one project's claimed enrolments share in a pass. */
export interface ProjectPass {
  appId: string;
  window: SendWindow;
  /** The project's zone: the window's when a customer's is not known, and the sending members' day (the cap). */
  zone: Clock;
  cap: number;
  versions: Map<string, VersionRow>;
  authors: Map<string, number>;
  customers: Map<string, Customer>;
  zones: Map<string, Clock>;
  jumped: Set<string>;
  /** E-mail steps per sending member and day, counted once a pass and kept up as it runs. */
  sent: Map<string, number>;
  ownerNames: Map<number, string | null>;
  now: number;
}

/** What a step did; a mail to queue as the transaction's last write. */
interface StepDone {
  outcome: 'queued' | 'task' | 'skipped';
  detail: string | null;
  mailId: string | null;
  taskId: string | null;
  mail?: Extract<PreparedStep, { outcome: 'queued' }>;
}

const TASK_KIND: Record<Exclude<Step['type'], 'email'>, string> = { manual_email: 'email', call: 'call', task: 'todo' };

/** The sending member's day is spent, as the step runs committed by every process say: the step's transaction is undone. */
class CapReached extends Error {}

/**
 * One claimed enrolment of the sequences runner's pass (runner.service.ts), in ONE transaction that
 * holds its lease: the step placed (its wait in business days from the previous step, the send window
 * in the customer's zone, the sending member's daily cap) or, when its time has come, run: its step
 * run written (at most once: the primary key), the mail queued through the campaigns' queue or the
 * task made for the sending member, the `step` event, and the enrolment advanced or finished.
 * `worker` is the runner's name in the enrolments' leases.
 */
export function createStepRunner(ctx: AppContext, deps: StepDeps, worker: string) {
  const db: Kysely<Database> = ctx.database.db;
  const writeEvents = bulkEventWriter(ctx.database.features);

  const ownerName = (p: ProjectPass, ownerId: number): string | null => p.ownerNames.get(ownerId) ?? null;

  /**
   * Takes one of the sending member's e-mail slots of their day (the project's zone), or false when the
   * daily cap is reached. Counted from the step runs once a pass, then kept up by the pass's lanes (a
   * slot is taken before the await that could let another lane in, and given back by a skipped mail).
   */
  async function takeSlot(trx: Kysely<Database>, p: ProjectPass, ownerId: number): Promise<boolean> {
    const key = `${ownerId}:${capDay(p.zone, p.now)}`;
    if (!p.sent.has(key)) {
      const counted = await repo.mailsOfDay(trx, p.appId, ownerId, capDay(p.zone, p.now));
      if (!p.sent.has(key)) p.sent.set(key, counted);
    }
    const n = p.sent.get(key) ?? 0;
    if (n >= p.cap) return false;
    p.sent.set(key, n + 1);
    return true;
  }

  /**
   * Whether the step run just written keeps the sending member within the daily cap, counting every
   * process's committed mails of the day: the count is serialised per member and day (PostgreSQL: an
   * advisory lock held to the commit; SQLite: its one writer), so runners in several processes, each
   * with its own slots, never queue more than the cap between them.
   */
  async function capHolds(trx: Kysely<Database>, p: ProjectPass, ownerId: number): Promise<boolean> {
    const day = capDay(p.zone, p.now);
    await ctx.database.features.transactionLock(trx, capLockKey(p.appId, ownerId, day));
    const n = await repo.mailsOfDay(trx, p.appId, ownerId, day);
    const key = `${ownerId}:${day}`;
    if (n > (p.sent.get(key) ?? 0)) p.sent.set(key, n);
    return n <= p.cap;
  }

  /** The customer's own link of the sequence's deck: the one kept on the enrolment, or a new one. */
  async function ownLink(trx: Kysely<Database>, p: ProjectPass, e: EnrollmentRow, v: VersionRow) {
    if (v.deck_link_id === null) return null;
    if (e.own_link_id !== null) {
      const url = await deps.ownLinks.url(trx, p.appId, e.own_link_id);
      if (url !== null) return { id: e.own_link_id, url };
    }
    const creatorName = ownerName(p, Number(e.owner_id));
    const input = {
      appId: p.appId,
      linkId: v.deck_link_id,
      customerId: e.customer_id,
      creatorId: Number(e.owner_id),
      creatorName,
      now: p.now,
    };
    return deps.ownLinks.directedCopy(trx, input);
  }

  async function mailStep(
    trx: Kysely<Database>,
    p: ProjectPass,
    at: { e: EnrollmentRow; v: VersionRow; step: Step },
    link: string | null,
  ): Promise<StepDone> {
    const { e, v, step } = at;
    const customer = p.customers.get(e.customer_id) as Customer;
    const queued = await deps.mail.prepare(trx, {
      appId: p.appId,
      sequenceId: e.sequence_id,
      version: Number(e.version),
      step: Number(e.step),
      campaignOwnerId: p.authors.get(e.sequence_id) ?? Number(e.owner_id),
      title: step.title,
      html: step.html ?? '',
      materialLinkId: v.deck_link_id,
      customer,
      ownerName: ownerName(p, Number(e.owner_id)),
      ownLink: link,
      now: p.now,
    });
    if (queued.outcome === 'skipped') {
      // No mail: the slot taken for it is given back.
      const key = `${e.owner_id}:${capDay(p.zone, p.now)}`;
      p.sent.set(key, (p.sent.get(key) ?? 1) - 1);
      return { outcome: 'skipped', detail: queued.detail, mailId: null, taskId: null };
    }
    return { outcome: 'queued', detail: null, mailId: queued.mailId, taskId: null, mail: queued };
  }

  async function taskStep(trx: Kysely<Database>, p: ProjectPass, e: EnrollmentRow, step: Step): Promise<StepDone> {
    const task = await deps.tasks.createInTransaction(trx, {
      appId: p.appId,
      customerId: e.customer_id,
      assigneeId: Number(e.owner_id),
      title: step.title,
      notes: step.note,
      kind: TASK_KIND[step.type as Exclude<Step['type'], 'email'>],
      dueAt: p.now,
      now: p.now,
    });
    if (task === null) return { outcome: 'skipped', detail: 'owner_unavailable', mailId: null, taskId: null };
    return { outcome: 'task', detail: null, mailId: null, taskId: task.id };
  }

  /** Runs the enrolment's step (its time has come), in the transaction that holds it. */
  async function runStep(trx: Kysely<Database>, p: ProjectPass, at: { e: EnrollmentRow; v: VersionRow; zone: Clock }): Promise<boolean> {
    const { e, v, zone } = at;
    const steps = stepsOf(v);
    const step = steps[Number(e.step)] as Step;
    const link = await ownLink(trx, p, e, v);
    const done = step.type === 'email' ? await mailStep(trx, p, { e, v, step }, link?.url ?? null) : await taskStep(trx, p, e, step);
    await repo.insertRuns(trx, [
      {
        app_id: p.appId,
        enrollment_id: e.id,
        step: Number(e.step),
        sequence_id: e.sequence_id,
        version: Number(e.version),
        customer_id: e.customer_id,
        kind: step.type,
        outcome: done.outcome,
        detail: done.detail,
        mail_id: done.mailId,
        task_id: done.taskId,
        owner_id: Number(e.owner_id),
        day: capDay(p.zone, p.now),
        created_at: p.now,
      },
    ]);
    const next = steps[Number(e.step) + 1];
    const finished = next === undefined;
    const row = await repo.settle(trx, e, {
      step: Number(e.step) + 1,
      last_step_at: p.now,
      own_link_id: link?.id ?? e.own_link_id,
      updated_at: p.now,
      ...(finished ? { state: 'finished', due_at: null, ended_at: p.now } : { due_at: dueAfter(zone, p.now, next.waitDays, p.window) }),
    });
    const stepEvent = deps.lifecycle.event('step', row, {
      step: Number(e.step),
      type: step.type,
      outcome: done.outcome,
      detail: done.detail,
    });
    await writeEvents(trx, p.appId, finished ? [stepEvent, deps.lifecycle.event('finished', row)] : [stepEvent], p.now);
    if (done.mail !== undefined) {
      if (!(await capHolds(trx, p, Number(e.owner_id)))) throw new CapReached();
      // Last: the step campaign's shared row, held from here to the commit only.
      await deps.mail.enqueue(trx, done.mail);
    }
    return done.outcome === 'queued';
  }

  /**
   * One enrolment in one transaction: placed (its time not yet come, or the member's cap reached) or
   * run. Answers whether a mail was queued.
   */
  async function runOne(p: ProjectPass, e: EnrollmentRow): Promise<boolean> {
    try {
      return await placeOrRun(p, e);
    } catch (err) {
      if (!(err instanceof CapReached)) throw err;
      // Other processes spent the member's day meanwhile: the step is undone, and waits as over the cap.
      p.sent.set(`${e.owner_id}:${capDay(p.zone, p.now)}`, p.cap);
      await db.transaction().execute(async (trx) => {
        if (await repo.hold(trx, e, worker)) await repo.settle(trx, e, { due_at: afterCap(p, e) });
        else await repo.release(trx, e, worker);
      });
      return false;
    }
  }

  /** The first window instant after the sending member's day ends, in the customer's zone (a capped step's time). */
  const afterCap = (p: ProjectPass, e: EnrollmentRow): number =>
    nextInWindow(p.zones.get(e.customer_id) ?? p.zone, p.zone.dayEnd(p.now), p.window);

  async function placeOrRun(p: ProjectPass, e: EnrollmentRow): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      if (!(await repo.hold(trx, e, worker))) {
        // Paused, exited or moved by a jump since the claim: left as it is now, without this lease.
        await repo.release(trx, e, worker);
        return false;
      }
      const v = p.versions.get(`${e.sequence_id}:${e.version}`);
      const steps = v === undefined ? [] : stepsOf(v);
      const step = steps[Number(e.step)];
      if (v === undefined || step === undefined) {
        // Nothing left to run (a version whose last step ran): finished.
        const row = await repo.settle(trx, e, { state: 'finished', due_at: null, ended_at: p.now, updated_at: p.now });
        await writeEvents(trx, p.appId, [deps.lifecycle.event('finished', row)], p.now);
        return false;
      }
      if (!p.customers.has(e.customer_id)) {
        // Deleted or merged away: the feed's exit or the merge's move is on its way; looked at again later.
        await repo.settle(trx, e, { due_at: p.now + GONE_RETRY_MS });
        return false;
      }
      const zone = p.zones.get(e.customer_id) ?? p.zone;
      const wait = p.jumped.has(e.id) ? 0 : step.waitDays;
      const at = nextInWindow(zone, Math.max(dueAfter(zone, Number(e.last_step_at), wait, p.window), p.now), p.window);
      if (at > p.now) {
        await repo.settle(trx, e, { due_at: at });
        return false;
      }
      if (step.type === 'email' && !(await takeSlot(trx, p, Number(e.owner_id)))) {
        // The member's day is spent: the first window instant after it ends, in the customer's zone.
        await repo.settle(trx, e, { due_at: afterCap(p, e) });
        return false;
      }
      return runStep(trx, p, { e, v, zone });
    });
  }

  return { runOne };
}

export type StepRunner = ReturnType<typeof createStepRunner>;
