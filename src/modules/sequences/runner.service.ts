import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { bulkEventWriter } from '../../events/outbox.ts';
import type { JobDefinition, TickOutcome } from '../../lib/jobs.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import { zoneClock } from '../../lib/zones.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { PreparedStep, SequenceMail } from '../campaigns/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { OwnLinks } from '../links/service.ts';
import type { TaskService } from '../tasks/service.ts';
import type { SequenceJumps } from './jumps.service.ts';
import type { Lifecycle } from './lifecycle.ts';
import { type EnrollmentRow, type Step, type VersionRow, daysOf, stepsOf } from './mapper.ts';
import { capLockKey, runnerRepository as repo } from './runner.repository.ts';
import { type SendWindow, capDay, dueAfter, nextInWindow } from './schedule.ts';
import type { SequenceSettings } from './settings.service.ts';

/** Enrolments one pass claims. */
const BATCH = 100;
/**
 * Enrolments of a pass run side by side on PostgreSQL (each in its own transaction), overlapping their
 * round trips; SQLite's one writer runs them one after the other anyway.
 */
const PARALLEL = { postgres: 4, sqlite: 1 } as const;
/** How often an idle runner looks for due steps. */
const POLL_MS = 1000;
/** An enrolment whose customer is no longer live (its exit or merge move not yet made) is looked at again after this. */
const GONE_RETRY_MS = 60 * 60_000;
/** An enrolment whose step failed unexpectedly is looked at again after this. */
const RETRY_MS = 60_000;
/** The customers' custom field holding their IANA time zone. */
export const TIME_ZONE_FIELD = 'time_zone';

export interface RunnerDeps {
  settings: Pick<SequenceSettings, 'forApp'>;
  lifecycle: Lifecycle;
  mail: Pick<SequenceMail, 'prepare' | 'enqueue' | 'nudge'>;
  tasks: Pick<TaskService, 'createInTransaction'>;
  ownLinks: OwnLinks;
  customers: Pick<CustomersService, 'mailRecipients' | 'fieldValueOf'>;
  accounts: Pick<AccountsService, 'userById'>;
  jumps: SequenceJumps;
}

type Customer = Awaited<ReturnType<CustomersService['mailRecipients']>>[number];

/** What one project's claimed enrolments share in a pass. */
interface ProjectPass {
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
 * The sequences runner (docs/sequences.md "Running"): the background job `sequence-runner` in every
 * server process. A pass reads the deck jumps from the feed, then claims due active enrolments by a
 * lease and runs each one's next step in ONE transaction: the step placed (its wait in business days
 * from the previous step, the send window in the customer's zone, the sending member's daily cap)
 * or, when its time has come, run: its step run written (at most once: the primary key), the mail
 * queued through the campaigns' queue or the task made for the sending member, the `step` event,
 * and the enrolment advanced or finished.
 */
export function createSequenceRunner(ctx: AppContext, deps: RunnerDeps) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const writeEvents = bulkEventWriter(ctx.database.features);
  const worker = `${process.pid}.${randomToken(6)}`;

  async function projectPass(appId: string, rows: EnrollmentRow[], now: number): Promise<ProjectPass> {
    const s = await deps.settings.forApp(appId);
    const zone = zoneClock(s.time_zone) ?? clock;
    const versions = await repo.versions(
      db,
      appId,
      rows.map((r) => ({ sequenceId: r.sequence_id, version: Number(r.version) })),
    );
    const customerIds = [...new Set(rows.map((r) => r.customer_id))];
    const customers = await deps.customers.mailRecipients(appId, { ids: customerIds, ownerId: null });
    const zones = new Map<string, Clock>();
    for (const [id, name] of await deps.customers.fieldValueOf(appId, customerIds, TIME_ZONE_FIELD)) {
      const z = zoneClock(name.trim());
      if (z !== null) zones.set(id, z);
    }
    return {
      appId,
      window: { start: Number(s.window_start), end: Number(s.window_end), days: daysOf(s) },
      zone,
      cap: Number(s.daily_cap),
      versions: new Map(versions.map((v) => [`${v.sequence_id}:${v.version}`, v])),
      authors: await repo.authors(db, appId, [...new Set(rows.map((r) => r.sequence_id))]),
      customers: new Map(customers.map((c) => [c.id, c])),
      zones,
      jumped: await repo.jumpedTo(db, appId, rows),
      sent: new Map(),
      ownerNames: await ownerNames(rows),
      now,
    };
  }

  /** The sending members' names, read before the enrolments' transactions (a read through the database, not theirs). */
  async function ownerNames(rows: EnrollmentRow[]): Promise<Map<number, string | null>> {
    const out = new Map<number, string | null>();
    for (const id of new Set(rows.map((r) => Number(r.owner_id)))) out.set(id, (await deps.accounts.userById(id))?.name ?? null);
    return out;
  }

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

  /**
   * One pass: the deck jumps read from the feed, then a batch of due enrolments claimed and run. The
   * enrolments found due, plus one when the feed may hold more to read.
   */
  async function pass(): Promise<number> {
    const feed = await deps.jumps.pass();
    const now = clock.now();
    const q = { worker, now, staleBefore: now - ctx.config.sequenceLeaseSeconds * 1000 };
    const due = await repo.dueQueue(db, { ...q, limit: BATCH });
    const found = new Map<string, string[]>();
    for (const r of due) found.set(r.app_id, [...(found.get(r.app_id) ?? []), r.id]);
    // Claimed per project: of two runners that found the same enrolment, one claims it.
    const byApp = new Map<string, EnrollmentRow[]>();
    for (const [appId, ids] of found) {
      const rows = await repo.claim(db, appId, ids, q);
      if (rows.length > 0) byApp.set(appId, rows);
    }
    let queued = 0;
    for (const [appId, rows] of byApp) {
      const p = await projectPass(appId, rows, now);
      let next = 0;
      const lane = async () => {
        for (let e = rows[next++]; e !== undefined; e = rows[next++]) {
          try {
            if (await runOne(p, e)) queued += 1;
          } catch (err) {
            logger.error({ err, enrollmentId: e.id }, 'sequences: a step failed; it is tried again later');
            await repo.release(db, e, worker, clock.now() + RETRY_MS);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL[ctx.database.features.name], rows.length) }, lane));
    }
    if (queued > 0) deps.mail.nudge();
    return due.length + (feed.full ? 1 : 0);
  }

  const job: JobDefinition = {
    name: 'sequence-runner',
    idleMs: POLL_MS,
    async tick(): Promise<TickOutcome> {
      return (await pass()) > 0 ? 'worked' : 'idle';
    },
  };

  return {
    /** This process's name in the enrolments' leases. */
    worker,
    job,
    pass,
    /** Runs passes until nothing is due now: what the job does, awaited (tests, the bench). */
    async drain(): Promise<number> {
      let total = 0;
      for (let n = await pass(); n > 0; n = await pass()) total += n;
      return total;
    },
  };
}

export type SequenceRunner = ReturnType<typeof createSequenceRunner>;
