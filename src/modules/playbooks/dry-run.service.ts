import type { AppContext } from '../../context.ts';
import type { PlaybooksDeps } from './common.ts';
import { type Definition, TRIGGER_ACTIONS, actionsRead } from './definition.ts';
import { type CustomerFacts, type Occurrence, hitKey, matches, needed, passes, periodMs } from './matching.ts';
import { addReadings, recordOccurrence } from './occurrences.ts';
import { describeTrigger } from './words.ts';

/** How far back a dry run looks. */
export const DRY_RUN_DAYS = 30;
/** Records a dry run reads at most (the oldest first): past them, it says it stopped. */
export const DRY_RUN_RECORDS = 50_000;
/** Runs a dry run lists at most (it counts them all). */
const LISTED = 500;
const DAY_MS = 86_400_000;

export interface DryRunRun {
  customerId: string;
  customerName: string | null;
  at: string;
  recordId: string;
  actions: string[];
}

export interface DryRunAnswer {
  since: string;
  until: string;
  trigger: { en: string; zh: string };
  records: number;
  /** The records read stopped at DRY_RUN_RECORDS: later ones were not looked at. */
  truncated: boolean;
  runs: number;
  customers: number;
  listed: DryRunRun[];
}

/**
 * A dry run (docs/playbooks.md "Dry run"): the playbook evaluated over the project's records of the
 * last 30 days, oldest first, by the evaluator's own rules (matching.ts: the conditions, the hits and
 * their repeats, the filters, the limit) in memory, doing nothing: which customers it would have acted
 * on, when, with which actions. A view's reading is its reading as stored now, a score the customer's
 * score now, the filters the customers as they are now.
 */
export function createPlaybookDryRun(ctx: AppContext, deps: PlaybooksDeps) {
  const db = ctx.database.db;
  const { clock } = ctx;

  async function occurrencesOf(appId: string, d: Definition, since: number): Promise<{ list: Occurrence[]; records: number }> {
    const actions = d.trigger.kind === 'score_above' ? [...new Set(Object.values(TRIGGER_ACTIONS).flat())] : actionsRead(d.trigger);
    const rows = await deps.recordsSince(appId, { actions, since, limit: DRY_RUN_RECORDS });
    const list = rows.map((r) =>
      recordOccurrence(appId, {
        id: r.id,
        customerId: r.customerId,
        action: r.action,
        at: r.at,
        recordedAt: r.createdAt,
        content: r.content,
      }),
    );
    if (d.trigger.kind === 'deck_read' || d.trigger.kind === 'link_open') await addReadings(deps, db, appId, list);
    if (d.trigger.kind !== 'score_above') return { list, records: rows.length };
    const last = new Map<string, Occurrence>();
    for (const o of list) last.set(o.customerId, o);
    const scores = await deps.scores.scoresOf(appId, [...last.keys()]);
    const scored = [...last.values()].flatMap((o) =>
      scores.has(o.customerId) ? [{ ...o, action: null, score: scores.get(o.customerId) as number }] : [],
    );
    return { list: scored, records: rows.length };
  }

  return {
    async run(appId: string, d: Definition): Promise<DryRunAnswer> {
      const until = clock.now();
      const since = until - DRY_RUN_DAYS * DAY_MS;
      const { list, records } = await occurrencesOf(appId, d, since);
      const matched = list.filter((o) => matches(d.trigger, o));
      const facts: Map<string, CustomerFacts> = await deps.customers.playbookFacts(appId, [...new Set(matched.map((o) => o.customerId))]);
      const need = needed(d.trigger);
      const hits = new Map<string, { key: string; at: number }[]>();
      const lastRun = new Map<string, number>();
      const runKeys = new Set<string>();
      const runs: DryRunRun[] = [];
      let count = 0;
      for (const o of matched) {
        const key = hitKey(d.trigger, d.limit, o);
        const mine = hits.get(o.customerId) ?? [];
        if (mine.some((h) => h.key === key)) continue;
        mine.push({ key, at: o.at });
        hits.set(o.customerId, mine);
        const within = mine.filter((h) => h.at <= o.at && h.at >= o.at - need.withinMs).length;
        const customer = facts.get(o.customerId);
        if (within < need.count || customer === undefined || !passes(d.filters, customer)) continue;
        const runKey = d.limit.kind === 'once' ? o.customerId : key;
        if (runKeys.has(runKey)) continue;
        const previous = lastRun.get(o.customerId);
        if (periodMs(d.limit) > 0 && previous !== undefined && previous > o.at - periodMs(d.limit)) continue;
        runKeys.add(runKey);
        lastRun.set(o.customerId, o.at);
        count += 1;
        if (runs.length < LISTED)
          runs.push({
            customerId: o.customerId,
            customerName: customer.name,
            at: clock.format(o.at),
            recordId: o.eventId,
            actions: d.actions.map((a) => a.type),
          });
      }
      return {
        since: clock.format(since),
        until: clock.format(until),
        trigger: describeTrigger(d.trigger),
        records,
        truncated: records >= DRY_RUN_RECORDS,
        runs: count,
        customers: lastRun.size,
        listed: runs,
      };
    },
  };
}

export type PlaybookDryRun = ReturnType<typeof createPlaybookDryRun>;
