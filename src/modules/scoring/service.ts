import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { BehaviourRecords } from '../behaviour/service.ts';
import type { CustomerScoreColumns, RisenCustomersReadModel } from '../customers/service.ts';
import type { FileFactsReader } from '../files/service.ts';
import type { LinkReadings } from '../links/service.ts';
import { createHotLeads } from './hot-leads.service.ts';
import { createScoreKeeper } from './keeper.service.ts';
import { decayed, halfLifeMs } from './points.ts';
import { type ScoreReason, presentReasons, rounded } from './reasons.ts';
import type { Reason } from './points.ts';
import { scoresJob } from './recompute.service.ts';
import { createScoringRepository, readScoreState, scoreStateReadModel } from './repository.ts';
import { createScoringSettings } from './settings.service.ts';

export type { HotAccount, HotLead, HotLeads, HotLeadsInput } from './hot-leads.service.ts';
export type { ScoreKeeper, ScoreMove } from './keeper.service.ts';
export type { ScoreReason, SignalOut } from './reasons.ts';
/** A score or points as every answer and the console show them: one decimal. */
export { rounded as scoreShown } from './reasons.ts';
export type { ScoringSettings, ScoringSettingsOut } from './settings.service.ts';
export type { RulesInput } from './rules.ts';

/** What a customer shows of its score: the score now and its largest reasons. */
export interface ScoreShown {
  score: number;
  scoreReasons: ScoreReason[];
}

export interface ScoringDeps {
  access: AccessService;
  audit: AuditRecorder;
  /** Views' pages and links' names (the links module's). */
  readings: LinkReadings;
  /** Files' names and page counts (the files module's). */
  files: FileFactsReader;
  /** The customers' score columns, and the read model the hot leads start from (the customers module's). */
  customers: CustomerScoreColumns;
  risenCustomers: RisenCustomersReadModel;
  /** Customers' records, read by the recompute (the behaviour module's). */
  behaviour: Pick<BehaviourRecords, 'recordsOf'>;
  defineJob: DefineJob;
}

/**
 * Engagement scores and hot leads (docs/scoring.md, ADR 0038), one service per caller:
 * - `settings`: a project's rules (`GET`/`PUT …/scoring`), and `rulesOf` for the others;
 * - `keeper`: the write path's points (ingestion's batches), a merge's move, an erasure's step, the
 *   recompute's batches, each in the caller's transaction;
 * - `hotLeads`: `GET …/hot-leads`;
 * - `view`: what the customers module's lists and detail show (`stateOf`, the read model their
 *   statements select, and `shown`, the score and reasons of a row);
 * - the background job `scores`, defined here, which scores a project's customers again from their records.
 */
export function createScoringService(ctx: AppContext, deps: ScoringDeps) {
  const repo = createScoringRepository(ctx.database, deps.risenCustomers);
  const settings = createScoringSettings(ctx, { repo, audit: deps.audit });
  const keeper = createScoreKeeper({
    clock: ctx.clock,
    repo,
    rulesOf: settings.rulesOf,
    readings: deps.readings,
    files: deps.files,
    customers: deps.customers,
    behaviour: deps.behaviour,
  });
  const recompute = scoresJob(ctx, { repo, keeper, customers: deps.customers });
  const job = deps.defineJob(recompute);
  const hotLeads = createHotLeads(ctx, { access: deps.access, repo, rulesOf: settings.rulesOf });

  return {
    settings: {
      ...settings,
      /** Changes the rules, and the project's customers are scored again by the job (started now in this process). */
      async put(...args: Parameters<typeof settings.put>) {
        const out = await settings.put(...args);
        job.poke();
        return out;
      },
    },
    keeper,
    hotLeads,
    /** One batch of the recompute now (the CLI and tests; a server's job runs it on its own). */
    recomputeOnce: () => recompute.runOnce(),
    view: {
      /** A customer's score state as one value of its row (aliased `c`): the read model of the lists and the detail. */
      stateOf: scoreStateReadModel(ctx.database.features),
      /** The scores, as shown now, of the project's customers among `ids` that have one (a playbook's `score_above`). */
      async scoresOf(appId: string, ids: string[]): Promise<Map<string, number>> {
        const halfLife = halfLifeMs(await settings.rulesOf(appId));
        const now = ctx.clock.now();
        const rows = await repo.committedStates(appId, ids);
        return new Map(rows.map((r) => [r.customer_id, rounded(decayed(r.value, r.ref_at, now, halfLife))]));
      },
      /** How the project's rows show their score: a function of the state a row selected with `stateOf`. */
      async shown(appId: string): Promise<(state: unknown) => ScoreShown> {
        const halfLife = halfLifeMs(await settings.rulesOf(appId));
        const now = ctx.clock.now();
        return (selected) => {
          const state = readScoreState(selected);
          if (state === null) return { score: 0, scoreReasons: [] };
          let kept: Reason[] = [];
          try {
            kept = JSON.parse(state.reasons) as Reason[];
          } catch {
            kept = [];
          }
          return {
            score: rounded(decayed(state.value, state.refAt, now, halfLife)),
            scoreReasons: presentReasons(ctx.clock, kept, now, halfLife),
          };
        };
      },
    },
  };
}

export type ScoringService = ReturnType<typeof createScoringService>;
export type ScoreView = ScoringService['view'];
