import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { JobDefinition, TickOutcome } from '../../lib/jobs.ts';
import { randomToken } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import { zoneClock } from '../../lib/zones.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { SequenceMail } from '../campaigns/service.ts';
import type { CustomersService } from '../customers/service.ts';
import type { SequenceJumps } from './jumps.service.ts';
import { type EnrollmentRow, daysOf } from './mapper.ts';
import { runnerRepository as repo } from './runner.repository.ts';
import type { SequenceSettings } from './settings.service.ts';
import { type ProjectPass, type StepDeps, createStepRunner } from './step-runner.service.ts';

/** Enrolments one pass claims. */
const BATCH = 100;
/**
 * Enrolments of a pass run side by side on PostgreSQL (each in its own transaction), overlapping their
 * round trips; SQLite's one writer runs them one after the other anyway.
 */
const PARALLEL = { postgres: 4, sqlite: 1 } as const;
/** How often an idle runner looks for due steps. */
const POLL_MS = 1000;
/** An enrolment whose step failed unexpectedly is looked at again after this. */
const RETRY_MS = 60_000;
/** The customers' custom field holding their IANA time zone. */
export const TIME_ZONE_FIELD = 'time_zone';

export interface RunnerDeps extends StepDeps {
  settings: Pick<SequenceSettings, 'forApp'>;
  mail: Pick<SequenceMail, 'prepare' | 'enqueue' | 'nudge'>;
  customers: Pick<CustomersService, 'mailRecipients' | 'fieldValueOf'>;
  accounts: Pick<AccountsService, 'userById'>;
  jumps: SequenceJumps;
}

/**
 * The sequences runner (docs/sequences.md "Running"): the background job `sequence-runner` in every
 * server process. A pass reads the deck jumps from the feed, then claims due active enrolments by a
 * lease and runs each one's next step in ONE transaction (step-runner.service.ts): the step placed
 * (its wait in business days from the previous step, the send window in the customer's zone, the
 * sending member's daily cap) or, when its time has come, run: its step run written (at most once:
 * the primary key), the mail queued through the campaigns' queue or the task made for the sending
 * member, the `step` event, and the enrolment advanced or finished.
 */
export function createSequenceRunner(ctx: AppContext, deps: RunnerDeps) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const worker = `${process.pid}.${randomToken(6)}`;
  const steps = createStepRunner(ctx, deps, worker);

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
            if (await steps.runOne(p, e)) queued += 1;
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
