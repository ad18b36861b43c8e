import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { Actor } from '../access/service.ts';
import { mailEngagementReadModel } from '../campaigns/service.ts';
import type { SequenceDefinitions } from './definitions.service.ts';
import { createFunnelRepository } from './funnel.repository.ts';
import { type EnrollmentState, stepsOf } from './mapper.ts';
import { sequencesRepository } from './repository.ts';

/** A step's line of the funnel. */
export interface FunnelStep {
  step: number;
  type: string;
  title: string;
  /** Enrolments whose run of this step is recorded, whatever its outcome. */
  reached: number;
  /** E-mail steps queued or sent. */
  sent: number;
  opened: number;
  clicked: number;
  /** Customers who replied after this step (before the next one ran). */
  replied: number;
  /** Tasks made (calls, manual e-mails, tasks). */
  tasks: number;
  skipped: number;
}

export interface Funnel {
  enrolled: number;
  active: number;
  paused: number;
  finished: number;
  exited: { total: number; byReason: Record<string, number> };
  steps: FunnelStep[];
}

/**
 * A sequence's funnel (docs/sequences.md "Funnel"), for every member who may read the sequence: its
 * enrolments by state and exit reason, and per step of the current version (by index, across
 * versions) the runs, mails sent, opened and clicked (a person's open, the campaigns' tracking),
 * replies after it and tasks made.
 */
export function createSequenceFunnel(ctx: AppContext, deps: { definitions: Pick<SequenceDefinitions, 'found'> }) {
  const db: Kysely<Database> = ctx.database.db;
  const repo = createFunnelRepository(mailEngagementReadModel);

  return {
    async funnel(actor: Actor, sequenceId: string): Promise<Funnel> {
      const s = await deps.definitions.found(actor, sequenceId);
      const appId = actor.app.id;
      const v = await sequencesRepository.version(db, appId, s.id, Number(s.version));
      const counts: Record<EnrollmentState, number> = { active: 0, paused: 0, finished: 0, exited: 0 };
      const byReason: Record<string, number> = {};
      for (const r of await repo.states(db, appId, s.id)) {
        counts[r.state as EnrollmentState] += r.n;
        if (r.state === 'exited' && r.reason !== null) byReason[r.reason] = (byReason[r.reason] ?? 0) + r.n;
      }
      const runs = await repo.stepRuns(db, appId, s.id);
      const replies = await repo.repliesByStep(db, appId, s.id);
      const steps = (v === undefined ? [] : stepsOf(v)).map((step, i): FunnelStep => {
        const mine = runs.filter((r) => r.step === i);
        const sum = (pick: (r: (typeof runs)[number]) => number) => mine.reduce((a, r) => a + pick(r), 0);
        const of = (...outcomes: string[]) => sum((r) => (outcomes.includes(r.outcome) ? r.runs : 0));
        return {
          step: i,
          type: step.type,
          title: step.title,
          reached: sum((r) => r.runs),
          sent: of('queued', 'sent'),
          opened: sum((r) => r.opened),
          clicked: sum((r) => r.clicked),
          // An enrolment that exited replied with `step` n replied after step n-1 ran.
          replied: replies.get(i + 1) ?? 0,
          tasks: of('task'),
          skipped: of('skipped'),
        };
      });
      const enrolled = counts.active + counts.paused + counts.finished + counts.exited;
      return { enrolled, ...counts, exited: { total: counts.exited, byReason }, steps };
    },
  };
}

export type SequenceFunnel = ReturnType<typeof createSequenceFunnel>;
