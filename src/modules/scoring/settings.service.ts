import type { AppContext } from '../../context.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { ScoringRepository } from './repository.ts';
import { DEFAULT_RULES, KEY_PAGE_CAP_SECONDS, type RulesInput, type ScoringRules, mergeRules, storedRules } from './rules.ts';

/** A project's scoring settings as the API answers them (docs/scoring.md, "Settings"). */
export interface ScoringSettingsOut extends ScoringRules {
  /** Seconds on one key page that count in one reading, at most (fixed). */
  keyPageCapSeconds: number;
  /** Whether the project's customers are being scored again from their records (after an upgrade or a change of rules). */
  recomputing: boolean;
  /** When the rules were last changed; null: never (the defaults). */
  updatedAt: string | null;
}

/**
 * A project's scoring rules (docs/scoring.md): read by every ingestion batch and customer list (kept
 * in process until they change in any process), shown to the project's members, changed by its
 * Master and Admins. A change starts the project's recompute (the job `scores`) from its first customer.
 */
export function createScoringSettings(ctx: AppContext, deps: { repo: ScoringRepository; audit: AuditRecorder }) {
  const { repo, audit } = deps;
  const clock = ctx.clock;

  /** Rules read from a kept row, kept with it (the same object until the row changes: callers may key on it). */
  const parsed = new WeakMap<object, ScoringRules>();

  async function rulesOf(appId: string): Promise<ScoringRules> {
    const row = await repo.settings(appId);
    if (row === null) return DEFAULT_RULES;
    let rules = parsed.get(row);
    if (rules === undefined) parsed.set(row, (rules = storedRules(row.rules)));
    return rules;
  }

  async function settingsOf(appId: string): Promise<ScoringSettingsOut> {
    const row = await repo.settings(appId);
    const rules = row === null ? DEFAULT_RULES : storedRules(row.rules);
    return {
      ...rules,
      keyPageCapSeconds: KEY_PAGE_CAP_SECONDS,
      recomputing: row !== null && row.recompute_from !== null,
      updatedAt: row === null || Number(row.updated_at) === 0 ? null : clock.format(Number(row.updated_at)),
    };
  }

  return {
    rulesOf,

    /** The project's settings (any member). */
    get(actor: Actor): Promise<ScoringSettingsOut> {
      return settingsOf(actor.app.id);
    },

    /**
     * Changes the rules (Master/Admin; the route checks the role before the body): each setting given
     * is checked (`scoring_invalid` names the first that is wrong: nothing is stored then), stored with
     * an audit entry, and the project's customers are scored again in the background.
     */
    async put(actor: Actor, input: RulesInput): Promise<ScoringSettingsOut> {
      const appId = actor.app.id;
      const next = mergeRules(await rulesOf(appId), input);
      await ctx.database.db.transaction().execute(async (trx) => {
        await repo.saveRules(trx, appId, JSON.stringify(next), actor.userId, clock.now());
        await audit(trx, {
          appId,
          actorId: actor.userId,
          action: 'project.scoring_edit',
          targetType: 'project',
          targetId: appId,
          detail: {
            halfLifeDays: next.halfLifeDays,
            deckShare: next.deckShare,
            returnDays: next.returnDays,
            weights: next.weights,
            keyPageFiles: next.keyPages.length,
            siteKeyPages: next.siteKeyPages.length,
            hotScore: next.hotScore,
          },
        });
      });
      return settingsOf(appId);
    },
  };
}

export type ScoringSettings = ReturnType<typeof createScoringSettings>;
