/**
 * The sequences module's SQL of a sequence's funnel (funnel.service.ts): its enrolments by state and
 * exit reason, its step runs by step and outcome with what their mails did (joined to the campaigns'
 * read model of recipient rows, in the same statement), and the replies by the step they came after.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { MailEngagementReadModel } from '../campaigns/mapper.ts';

type Db = Kysely<Database>;

export interface StepRunCount {
  step: number;
  outcome: string;
  runs: number;
  opened: number;
  clicked: number;
}

export function createFunnelRepository(mails: MailEngagementReadModel) {
  return {
    /** Enrolments by state and exit reason (null unless exited). */
    async states(db: Db, appId: string, sequenceId: string): Promise<{ state: string; reason: string | null; n: number }[]> {
      const rows = await db
        .selectFrom('sequence_enrollments')
        .select(['state', 'exit_reason', (eb) => eb.fn.countAll().as('n')])
        .where('app_id', '=', appId)
        .where('sequence_id', '=', sequenceId)
        .groupBy(['state', 'exit_reason'])
        .execute();
      return rows.map((r) => ({ state: r.state, reason: r.exit_reason, n: Number(r.n) }));
    },

    /** Step runs by step and outcome, with how many of their mails were opened (by a person) and clicked. */
    async stepRuns(db: Db, appId: string, sequenceId: string): Promise<StepRunCount[]> {
      const rows = await db
        .selectFrom('sequence_step_runs as r')
        .leftJoin(mails.recipients(db, appId).as('m'), (j) => j.onRef('m.id', '=', 'r.mail_id').onRef('m.app_id', '=', 'r.app_id'))
        .select((eb) => [
          'r.step',
          'r.outcome',
          eb.fn.countAll().as('runs'),
          eb.fn.sum(eb.case().when('m.opens', '>', 0).then(1).else(0).end()).as('opened'),
          eb.fn.sum(eb.case().when('m.clicks', '>', 0).then(1).else(0).end()).as('clicked'),
        ])
        .where('r.app_id', '=', appId)
        .where('r.sequence_id', '=', sequenceId)
        .groupBy(['r.step', 'r.outcome'])
        .execute();
      return rows.map((r) => ({
        step: Number(r.step),
        outcome: r.outcome,
        runs: Number(r.runs),
        opened: Number(r.opened ?? 0),
        clicked: Number(r.clicked ?? 0),
      }));
    },

    /** Enrolments that exited `replied`, by the index of their next step then (the reply came after the step before it). */
    async repliesByStep(db: Db, appId: string, sequenceId: string): Promise<Map<number, number>> {
      const rows = await db
        .selectFrom('sequence_enrollments')
        .select(['step', (eb) => eb.fn.countAll().as('n')])
        .where('app_id', '=', appId)
        .where('sequence_id', '=', sequenceId)
        .where('state', '=', 'exited')
        .where('exit_reason', '=', 'replied')
        .groupBy('step')
        .execute();
      return new Map(rows.map((r) => [Number(r.step), Number(r.n)]));
    },
  };
}
