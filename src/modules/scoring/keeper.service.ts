import type { BehaviourLogsTable, CustomerScoresTable, Database } from '../../db/index.ts';
import type { Insertable, Kysely } from 'kysely';
import { writeEvents } from '../../events/outbox.ts';
import type { Clock } from '../../lib/time.ts';
import type { BehaviourRecords } from '../behaviour/service.ts';
import type { CustomerScoreColumns, ScoreColumns } from '../customers/service.ts';
import type { FileFacts, FileFactsReader } from '../files/service.ts';
import type { LinkReadings } from '../links/service.ts';
import {
  type PointsContext,
  READING_ACTIONS,
  SCORING_ACTIONS,
  type ScoreState,
  type ScoredRecord,
  applyRecords,
  decayed,
  halfLifeMs,
  keyOf,
  mergeStates,
} from './points.ts';
import { type AnnouncedReason, announcedReasons, rounded } from './reasons.ts';
import { changed, freshState, rowOf, stateOf } from './state-rows.ts';
import type { ScoringRepository } from './repository.ts';
import { type ScoringRules, siteKeyPageOf } from './rules.ts';

/** Site visits: they earn only under a key prefix. */
const SITE_ACTIONS: ReadonlySet<string> = new Set(['access_site', 'web_page_view']);

const keyPageWordsKept = new WeakMap<ScoringRules, RegExp>();
/**
 * What a site record's text must contain to be under one of the rules' key prefixes: the last word
 * of one of them (a path's last segment, or the host), in any case. A record without any cannot be
 * under one; one with it is parsed and matched (siteKeyPageOf).
 */
function keyPageWords(rules: ScoringRules): RegExp {
  let re = keyPageWordsKept.get(rules);
  if (re === undefined) {
    const words = rules.siteKeyPages.map(
      (p) =>
        p
          .split('/')
          .filter((w) => w !== '')
          .at(-1) ?? p,
    );
    re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') || '(?!)', 'i');
    keyPageWordsKept.set(rules, re);
  }
  return re;
}

type Db = Kysely<Database>;

/** A merged customer whose score moves to its survivor. */
export interface ScoreMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

/** What the keeper needs: the module's SQL and rules, and what its owners hand over (views' pages, files, the score columns). */
export interface ScoreKeeperDeps {
  clock: Clock;
  repo: ScoringRepository;
  rulesOf: (appId: string) => Promise<ScoringRules>;
  readings: LinkReadings;
  files: FileFactsReader;
  customers: CustomerScoreColumns;
  behaviour: Pick<BehaviourRecords, 'recordsOf'>;
}

/** Records further back than this many half-lives count for less than a millionth: a recompute leaves them out. */
const HORIZON_HALF_LIVES = 20;
/** Records a recompute reads for one batch of customers, at most. */
const RECOMPUTE_RECORDS = 200_000;
/** How long a file's name and page count are kept in process (they change with a new version). */
const FILE_FACTS_MS = 60_000;
/** A rise further back than this is a producer's backfill: it announces no hot lead (as the alerts tell no old record). */
const HOT_RISE_MS = 60 * 60 * 1000;

/** The body of a `Customer` `hot` event (docs/scoring.md, "Hot leads announced"). */
export interface HotLeadBody {
  id: string;
  appId: string;
  svcUserId: string;
  score: number;
  /** The largest reasons in English words. */
  scoreReasons: string[];
  /** The same reasons in their structured form, for words in any language. */
  reasonDetails: AnnouncedReason[];
}

/** A record's content object (JSON text), or an empty one. */
function contentOf(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Whether a record can earn anything under these rules (a link view always counts: it marks the next return). */
function mayScore(action: string, rules: ScoringRules): boolean {
  const w = rules.weights;
  switch (action) {
    case 'access_site':
    case 'web_page_view':
      return w.site_key_page > 0 && rules.siteKeyPages.length > 0;
    case 'mail_click':
      return w.mail_click > 0;
    case 'link_view_clue':
    case 'submit_form':
    case 'app_submit_form':
      return w.form > 0;
    case 'file_view_duration':
    case 'link_leave_log':
      return w.deck_read > 0 || (w.key_page_second > 0 && rules.keyPages.length > 0);
    default:
      return SCORING_ACTIONS.has(action);
  }
}

type Row = Pick<Insertable<BehaviourLogsTable>, 'id' | 'app_id' | 'customer_id' | 'action' | 'when_at' | 'created_at' | 'content'>;

/** A record as the rules read it: its own time, never later than when it was stored. */
const scored = (r: Row): ScoredRecord => ({
  id: r.id,
  action: r.action,
  at: Math.min(Number(r.when_at), Number(r.created_at)),
  content: contentOf(r.content),
});

/**
 * Scores kept at write time (docs/scoring.md, ADR 0038): points added in the transaction of the
 * records that earn them (ingestion's write path), a merged customer's score moved to its survivor,
 * a project's customers scored again from their records (the job `scores`), a customer's score
 * erased with it. Each changes the customers' states and their score columns in the caller's
 * transaction, after locking the customers' scores (PostgreSQL) so that concurrent writers add up.
 */
export function createScoreKeeper(deps: ScoreKeeperDeps) {
  const { clock, repo, rulesOf, readings, files, customers } = deps;
  const factsKept = new Map<string, { until: number; facts: FileFacts | null }>();

  /** Files' names and page counts, kept a minute in process. */
  async function fileFacts(trx: Db, appId: string, ids: string[]): Promise<Map<string, FileFacts>> {
    const now = clock.now();
    const out = new Map<string, FileFacts>();
    const missing: string[] = [];
    for (const id of ids) {
      const kept = factsKept.get(`${appId}\u0000${id}`);
      if (kept !== undefined && kept.until > now) {
        if (kept.facts !== null) out.set(id, kept.facts);
      } else missing.push(id);
    }
    if (missing.length === 0) return out;
    const found = await files.of(trx, appId, missing);
    if (factsKept.size > 10_000) factsKept.clear();
    for (const id of missing) {
      const facts = found.get(id) ?? null;
      factsKept.set(`${appId}\u0000${id}`, { until: now + FILE_FACTS_MS, facts });
      if (facts !== null) out.set(id, facts);
    }
    return out;
  }

  /** What the rules read beside the records: the pages of the views the records name, their files, the links of forms. */
  async function contextFor(trx: Db, appId: string, rules: ScoringRules, records: ScoredRecord[]): Promise<PointsContext> {
    const viewIds = new Set<string>();
    const linkIds = new Set<string>();
    for (const r of records) {
      const view = r.content.linkViewLogId;
      if (READING_ACTIONS.has(r.action) && typeof view === 'string' && view !== '') viewIds.add(view);
      const link = r.content.linkId;
      if (r.action === 'link_view_clue' && typeof link === 'string' && link !== '') linkIds.add(link);
    }
    const views = viewIds.size === 0 ? new Map() : await readings.viewPages(trx, appId, [...viewIds]);
    const fileIds = new Set<string>();
    for (const v of views.values()) for (const f of v.files.keys()) fileIds.add(f);
    return {
      rules,
      views,
      files: fileIds.size === 0 ? new Map() : await fileFacts(trx, appId, [...fileIds]),
      links: linkIds.size === 0 ? new Map() : await readings.linkNames(trx, appId, [...linkIds]),
    };
  }

  /**
   * Applies each customer's records to its stored state (or to none: `fresh`, which keeps of the
   * stored state only when the customer was last announced, so that a recompute never announces it
   * twice a day) and stores what changed: the states, and the score columns of customers whose key
   * or rise moved.
   */
  async function apply(trx: Db, appId: string, byCustomer: Map<string, ScoredRecord[]>, fresh: boolean): Promise<void> {
    const rules = await rulesOf(appId);
    const all = [...byCustomer.values()].flat();
    const ctx = await contextFor(trx, appId, rules, all);
    const ids = [...byCustomer.keys()];
    await repo.lockCustomers(trx, appId, ids);
    const stored = new Map((await repo.states(trx, appId, ids)).map((r) => [r.customer_id, r]));
    const halfLife = halfLifeMs(rules);
    const now = clock.now();
    const rows: Insertable<CustomerScoresTable>[] = [];
    const columns: ScoreColumns[] = [];
    const empty: string[] = [];
    const hot: { id: string; state: ScoreState }[] = [];
    for (const [id, records] of byCustomer) {
      const before = stored.get(id);
      records.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const prior = fresh ? freshState(before) : stateOf(before);
      const was = decayed(prior.value, prior.refAt, now, halfLife);
      const state = applyRecords(prior, records, ctx);
      if (!fresh && becameHot(was, state, rules, now)) {
        state.marks.hotAt = now;
        hot.push({ id, state });
      }
      const key = keyOf(state.value, state.refAt, halfLife);
      const row = rowOf(appId, id, state, now);
      if (fresh && state.value === 0 && state.marks.lastViewAt === 0 && state.marks.hotAt === undefined) empty.push(id);
      else if (fresh || changed(before, row)) rows.push(row);
      const keyBefore = before === undefined ? 0 : keyOf(Number(before.value), Number(before.ref_at), halfLife);
      if (fresh || key !== keyBefore || state.riseAt !== Number(before?.rise_at ?? 0)) columns.push([appId, id, key, state.riseAt]);
    }
    await repo.saveStates(trx, rows);
    if (empty.length > 0) await repo.deleteStates(trx, appId, empty);
    await customers.setScores(trx, columns);
    if (hot.length > 0) await announce(trx, appId, hot, { halfLife, now });
  }

  /**
   * Whether a batch's records make the customer a hot lead (docs/scoring.md, "Hot leads announced"):
   * they raised its score, recently, to at least the project's `hotScore`, and it was not announced
   * yet today (the server's day).
   */
  function becameHot(was: number, state: ScoreState, rules: ScoringRules, now: number): boolean {
    if (rules.hotScore <= 0 || state.riseAt < now - HOT_RISE_MS) return false;
    const score = decayed(state.value, state.refAt, now, halfLifeMs(rules));
    // Compared as shown (one decimal): a deck read of 10 points a second ago is a score of 10.
    if (rounded(score) < rules.hotScore || score <= was) return false;
    return state.marks.hotAt === undefined || clock.day(state.marks.hotAt) !== clock.day(now);
  }

  /** `Customer` `hot` events for the customers a batch made hot leads, in its transaction (their owners read in one statement). */
  async function announce(trx: Db, appId: string, hot: { id: string; state: ScoreState }[], at: { halfLife: number; now: number }) {
    const { halfLife, now } = at;
    const owners = await customers.ownersOf(
      trx,
      appId,
      hot.map((h) => h.id),
    );
    const events = hot.flatMap(({ id, state }) => {
      const owner = owners.get(id);
      if (owner === undefined) return [];
      const reasons = announcedReasons(clock, state.reasons, now, halfLife);
      const body: HotLeadBody = {
        id,
        appId,
        svcUserId: String(owner),
        score: rounded(decayed(state.value, state.refAt, now, halfLife)),
        scoreReasons: reasons.map((r) => r.text),
        reasonDetails: reasons,
      };
      return [{ event_type: 'hot' as const, domainType: 'Customer', domainId: id, body }];
    });
    await writeEvents(trx, appId, events, now);
  }

  return {
    /**
     * Adds the points of a batch's records (or a group's), in its transaction: the records that may
     * earn something under their project's rules, per project and customer; nothing for a batch
     * without any (no statement).
     */
    async add(trx: Db, rows: readonly Row[]): Promise<void> {
      let projects: Map<string, Row[]> | null = null;
      for (const r of rows) {
        if (!SCORING_ACTIONS.has(r.action)) continue;
        projects ??= new Map();
        const list = projects.get(r.app_id);
        if (list === undefined) projects.set(r.app_id, [r]);
        else list.push(r);
      }
      if (projects === null) return;
      for (const [appId, candidates] of projects) {
        const rules = await rulesOf(appId);
        const byCustomer = new Map<string, ScoredRecord[]>();
        const mentions = keyPageWords(rules);
        for (const r of candidates) {
          if (!mayScore(r.action, rules)) continue;
          const site = SITE_ACTIONS.has(r.action);
          // A page of the site under no key prefix earns nothing and marks nothing: its customer's state
          // is not read. Most are told by their text alone, before it is parsed.
          if (site && !mentions.test(r.content ?? '')) continue;
          const record = scored(r);
          if (site && siteKeyPageOf(rules, typeof record.content.url === 'string' ? record.content.url : '') === null) continue;
          const list = byCustomer.get(r.customer_id);
          if (list === undefined) byCustomer.set(r.customer_id, [record]);
          else list.push(record);
        }
        if (byCustomer.size > 0) await apply(trx, appId, byCustomer, false);
      }
    },

    /**
     * Scores these customers of the project again from the records they hold (the recompute job's
     * batch), in the caller's transaction: what the rules make of their records of the last
     * HORIZON_HALF_LIVES half-lives, replacing their states.
     */
    async recompute(trx: Db, appId: string, customerIds: string[]): Promise<void> {
      const rules = await rulesOf(appId);
      const since = clock.now() - HORIZON_HALF_LIVES * halfLifeMs(rules);
      const actions = [...SCORING_ACTIONS].filter((a) => mayScore(a, rules));
      const found = await deps.behaviour.recordsOf(trx, { appId, customerIds, actions, since, limit: RECOMPUTE_RECORDS });
      const byCustomer = new Map<string, ScoredRecord[]>(customerIds.map((id) => [id, []]));
      for (const r of found) byCustomer.get(r.customer_id)?.push(scored({ ...r, app_id: appId }));
      await apply(trx, appId, byCustomer, true);
    },

    /** The merged customer's score added to its survivor's (docs/scoring.md, "Merges"), in the merge's transaction. */
    async move(trx: Db, m: ScoreMove): Promise<void> {
      await repo.lockCustomers(trx, m.appId, [m.mergedId, m.survivorId]);
      const states = new Map((await repo.states(trx, m.appId, [m.mergedId, m.survivorId])).map((r) => [r.customer_id, r]));
      const merged = states.get(m.mergedId);
      if (merged === undefined) return;
      const halfLife = halfLifeMs(await rulesOf(m.appId));
      const survivor = mergeStates(stateOf(states.get(m.survivorId)), stateOf(merged), halfLife);
      await repo.saveStates(trx, [rowOf(m.appId, m.survivorId, survivor, clock.now())]);
      await repo.deleteStates(trx, m.appId, [m.mergedId]);
      await customers.setScores(trx, [
        [m.appId, m.survivorId, keyOf(survivor.value, survivor.refAt, halfLife), survivor.riseAt],
        [m.appId, m.mergedId, 0, 0],
      ]);
    },

    /** The customers' scores, erased with them (the erasure's step); returns the rows deleted. */
    erase(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteStates(trx, appId, customerIds);
    },
  };
}

export type ScoreKeeper = ReturnType<typeof createScoreKeeper>;
