import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { PLAYBOOKS_FEED_CURSOR, advanceCursor, readWholeFeed, startCursor } from '../../events/feed-cursors.ts';
import { sequenceOutbox } from '../../events/sequencer.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { PlaybookActions } from './actions.service.ts';
import type { PlaybooksDeps } from './common.ts';
import { type Definition, TRIGGER_ACTIONS, actionsRead } from './definition.ts';
import { definitionOfRow } from './mapper.ts';
import { type CustomerFacts, type Occurrence, hitKey, matches, needed, passes, periodMs, runKey } from './matching.ts';
import { addReadings, feedOccurrences } from './occurrences.ts';
import { type PlaybookRow, playbooksRepository as repo } from './repository.ts';
import type { PlaybookWebhooks } from './webhooks.service.ts';

/** Events one pass reads. */
const BATCH = 500;
/** How often a server looks at the feed when idle. */
export const EVALUATE_EVERY_MS = 1_000;
/** The evaluators' lock: one pass commits at a time (PostgreSQL advisory lock; SQLite's write lock). */
const EVALUATOR_LOCK = 727_039;
/** The records whose bodies a score trigger reads (the customer whose score may have moved). */
const SCORE_ACTIONS = [...new Set(Object.values(TRIGGER_ACTIONS).flat())];

class CursorMoved extends Error {}

/** A playbook the pass evaluates. */
interface Live {
  row: PlaybookRow;
  def: Definition;
}

/** An occurrence that matched a playbook's trigger: a hit to record, maybe a run. */
interface Candidate {
  playbook: Live;
  occurrence: Occurrence;
  hit: string;
}

export interface PassResult {
  events: number;
  runs: number;
}

/**
 * The evaluator (docs/playbooks.md "How a playbook is evaluated"): a pass reads the feed after the
 * cursor `playbooks` (every project's events, in feed order), turns behaviour records into
 * occurrences (with their view's reading as stored, or the customer's score), matches them against
 * the project's enabled playbooks, and commits in ONE transaction under a lock: the cursor moved on,
 * each hit once per key, and, where the hits within the period reach the repeats, the filters hold
 * and the limit allows, the run (unique per run key) with its actions. Every server runs it; a pass
 * whose events another committed first is dropped. So a record acts once across restarts, WORKERS
 * and servers, and a customer's records act in their feed order.
 */
export function createPlaybookEvaluator(
  ctx: AppContext,
  deps: PlaybooksDeps,
  parts: { actions: PlaybookActions; webhooks: PlaybookWebhooks },
) {
  const db = ctx.database.db;
  const { clock } = ctx;

  /** The behaviour actions whose record bodies the enabled playbooks need (none: no playbook, nothing to read). */
  async function wanted(): Promise<string[] | null> {
    const triggers = await repo.enabledTriggers(db);
    if (triggers.length === 0) return null;
    const out = new Set<string>();
    for (const text of triggers) {
      try {
        const t = JSON.parse(text) as { kind: string; conditions: object };
        for (const a of t.kind === 'score_above' ? SCORE_ACTIONS : actionsRead({ kind: t.kind, conditions: {} })) out.add(a);
      } catch {
        // A trigger that does not parse triggers nothing.
      }
    }
    return [...out];
  }

  /** The customers' scores now, as occurrences after their last record of the pass (a score trigger's material). */
  async function scoreOccurrences(appId: string, list: Occurrence[]): Promise<Occurrence[]> {
    const last = new Map<string, Occurrence>();
    for (const o of list) last.set(o.customerId, o);
    const scores = await deps.scores.scoresOf(appId, [...last.keys()]);
    return [...last.values()].flatMap((o) => {
      const score = scores.get(o.customerId);
      return score === undefined ? [] : [{ ...o, action: null, score }];
    });
  }

  /** One project's candidates, in feed order. */
  async function candidatesOf(appId: string, list: (Occurrence & { viewId: string | null })[]): Promise<Candidate[]> {
    const live = (await repo.enabled(db, appId)).map((row) => ({ row, def: definitionOfRow(row) }));
    if (live.length === 0) return [];
    if (live.some((p) => p.def.trigger.kind === 'deck_read' || p.def.trigger.kind === 'link_open'))
      await addReadings(deps, db, appId, list);
    const all: Occurrence[] = [...list];
    if (live.some((p) => p.def.trigger.kind === 'score_above')) all.push(...(await scoreOccurrences(appId, list)));
    const out: Candidate[] = [];
    for (const o of all)
      for (const p of live)
        if (matches(p.def.trigger, o)) out.push({ playbook: p, occurrence: o, hit: hitKey(p.def.trigger, p.def.limit, o) });
    return out;
  }

  /** Whether a candidate acts now: its hit new, the repeats reached, the filters held, the limit allowing. */
  async function acts(trx: Kysely<Database>, c: Candidate, customer: CustomerFacts | undefined): Promise<string | null> {
    const { playbook: p, occurrence: o } = c;
    const appId = o.appId;
    if (!(await repo.insertHit(trx, { app_id: appId, playbook_id: p.row.id, key: c.hit, customer_id: o.customerId, at: o.at })))
      return null;
    const need = needed(p.def.trigger);
    if (need.count > 1) {
      const from = Number.isFinite(need.withinMs) ? o.at - need.withinMs : 0;
      if ((await repo.hitsWithin(trx, appId, { playbookId: p.row.id, customerId: o.customerId, from, to: o.at })) < need.count) return null;
    }
    if (customer === undefined || !passes(p.def.filters, customer)) return null;
    const key = runKey(p.row.id, p.def.limit, o.customerId, c.hit);
    if (await repo.runKeyExists(trx, appId, key)) return null;
    const period = periodMs(p.def.limit);
    if (period > 0) {
      const last = await repo.lastRunAt(trx, appId, p.row.id, o.customerId);
      if (last !== null && last > o.at - period) return null;
    }
    return key;
  }

  /** A run and its actions, in the pass's transaction. */
  async function act(trx: Kysely<Database>, c: Candidate, run: { customer: CustomerFacts; key: string; now: number }): Promise<void> {
    const { customer, key, now } = run;
    const { playbook: p, occurrence: o } = c;
    const id = timeOrderedUuid(now);
    const webhook = p.def.actions.some((a) => a.type === 'webhook');
    await repo.insertRun(trx, {
      id,
      app_id: o.appId,
      playbook_id: p.row.id,
      customer_id: o.customerId,
      run_key: key,
      hit_key: c.hit,
      event_id: o.eventId,
      recorded_at: o.recordedAt,
      outcome: '[]',
      webhook_status: webhook ? 'pending' : null,
      webhook_attempts: 0,
      webhook_next_at: webhook ? now : null,
      webhook_error: null,
      created_at: now,
    });
    const outcome = await parts.actions.run(trx, {
      runId: id,
      playbookId: p.row.id,
      createdBy: p.row.created_by,
      definition: p.def,
      customer,
      occurrence: o,
      now,
    });
    await repo.setOutcome(trx, o.appId, id, JSON.stringify(outcome));
  }

  async function commit(span: { from: number; to: number }, byApp: Map<string, Candidate[]>): Promise<number> {
    const facts = new Map<string, Map<string, CustomerFacts>>();
    for (const [appId, list] of byApp)
      facts.set(appId, await deps.customers.playbookFacts(appId, [...new Set(list.map((c) => c.occurrence.customerId))]));
    return db.transaction().execute(async (trx) => {
      await ctx.database.features.transactionLock(trx, EVALUATOR_LOCK);
      if (span.to !== span.from && !(await advanceCursor(trx, PLAYBOOKS_FEED_CURSOR, span.from, span.to))) throw new CursorMoved();
      const now = clock.now();
      let runs = 0;
      for (const [appId, list] of byApp) {
        for (const c of list) {
          const customer = facts.get(appId)?.get(c.occurrence.customerId);
          const key = await acts(trx, c, customer);
          if (key === null || customer === undefined) continue;
          await act(trx, c, { customer, key, now });
          runs += 1;
        }
      }
      return runs;
    });
  }

  /** One pass over the feed after the cursor. */
  async function pass(): Promise<PassResult> {
    await sequenceOutbox(db, ctx.database.features);
    const from = await startCursor(db, PLAYBOOKS_FEED_CURSOR);
    const actions = await wanted();
    const events = await readWholeFeed(db, clock, from, { limit: BATCH, behaviourActions: actions ?? [] });
    const to = events.length > 0 ? (events[events.length - 1]?.seq ?? from) : from;
    const byApp = new Map<string, Candidate[]>();
    if (actions !== null) {
      const occurrences = new Map<string, (Occurrence & { viewId: string | null })[]>();
      for (const o of feedOccurrences(events, clock)) occurrences.set(o.appId, [...(occurrences.get(o.appId) ?? []), o]);
      for (const [appId, list] of occurrences) {
        const found = await candidatesOf(appId, list);
        if (found.length > 0) byApp.set(appId, found);
      }
    }
    try {
      const runs = await commit({ from, to }, byApp);
      if (runs > 0) parts.webhooks.poke();
      return { events: events.length, runs };
    } catch (err) {
      if (err instanceof CursorMoved) return { events: 0, runs: 0 };
      throw err;
    }
  }

  const job: JobDefinition = {
    name: 'playbook-evaluate',
    idleMs: EVALUATE_EVERY_MS,
    tick: async () => ((await pass()).events === BATCH ? 'worked' : 'idle'),
  };

  return { pass, job };
}

export type PlaybookEvaluator = ReturnType<typeof createPlaybookEvaluator>;
