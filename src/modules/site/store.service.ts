import type { Database } from '../../db/index.ts';
import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { QuotaTaken, type SiteGate, type SiteGuard, type SiteRows, type SiteStore } from '../ingest/service.ts';
import { createSiteWrites } from './repository.ts';

/** A project's daily quota of anonymous site records in one group: its cap, the room it had when read, what the group used. */
interface QuotaRoom {
  appId: string;
  day: string;
  cap: number;
  room: number;
  used: number;
}

/** What a guarded plan of the group does to its visitor, and the tie it was computed from. */
type Taken = { tie: boolean; state: string };
const NO_TIE = '';
/** A visitor's tie as one comparable value: NO_TIE, or verified flag and customer. */
const tieState = (customerId: string | null, verified: boolean): string =>
  customerId === null ? NO_TIE : `${verified ? 1 : 0}:${customerId}`;

/** The advisory key of a site visitor (a namespace of its own above the 32-bit keys of other locks). */
function visitorLockKey(appId: string, visitorId: string): number {
  let h = 0x811c9dc5;
  const s = `${appId}\u0000${visitorId}`;
  for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return 0x5_0000_0000 + (h >>> 0);
}

/** Rows sorted by their key columns (plain code-unit order; any fixed order serves). */
function byKey<T>(rows: T[], key: (r: T) => string[]): T[] {
  const keyed = rows.map((r) => ({ r, k: key(r) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.k.length; i += 1) {
      const x = a.k[i] as string;
      const y = b.k[i] as string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return keyed.map((e) => e.r);
}

/** One row per visit (its latest sign of life), in key order: a statement may not touch a row twice, and concurrent groups then lock shared rows in the same order. */
function latestVisits(sites: SiteRows[]): Insertable<Database['site_visits']>[] {
  const latest = new Map<string, Insertable<Database['site_visits']>>();
  for (const v of sites.flatMap((s) => s.visits)) {
    const k = `${v.app_id}\u0000${v.visitor_id}\u0000${v.id}`;
    const before = latest.get(k);
    if (before === undefined) latest.set(k, v);
    else
      latest.set(k, {
        ...before,
        last_at: Math.max(Number(v.last_at), Number(before.last_at)),
        site: before.site ?? v.site ?? null,
        referrer: before.referrer ?? v.referrer ?? null,
        post_id: before.post_id ?? v.post_id ?? null,
      });
  }
  return byKey([...latest.values()], (v) => [v.app_id, v.visitor_id, v.id]);
}

/**
 * What site tracking stores through ingestion's viewer write (ingest's SiteStore): the site tables'
 * rows in the write's transaction, the visitor guards of anonymous records and ties, and the daily
 * quota of anonymous records. Built by the composition root and handed to ingestion.
 */
export function createSiteStore(ctx: AppContext): SiteStore {
  const database = ctx.database;
  const writes = createSiteWrites(database);

  /** The guarded visitors' ties as this transaction sees them (see tieState), one statement per project and chunk. */
  async function tiesOf(trx: Kysely<Database>, sites: SiteRows[]): Promise<Map<string, string>> {
    const byApp = new Map<string, Set<string>>();
    for (const s of sites) {
      if (s.guard === null) continue;
      let ids = byApp.get(s.appId);
      if (ids === undefined) byApp.set(s.appId, (ids = new Set()));
      ids.add(s.guard.visitorId);
    }
    const ties = new Map<string, string>();
    for (const [appId, ids] of byApp) {
      for (const r of await writes.ties(trx, appId, [...ids]))
        ties.set(`${appId}\u0000${r.id}`, tieState(r.customer_id, Number(r.verified) === 1));
    }
    return ties;
  }

  /**
   * The room left in the daily quotas of the group's counted rows, by project and day, as read now
   * (each project's row of the day made when missing). Read without a lock: finish() counts what
   * the group used at its end, and fails the group if another transaction took the room meanwhile.
   */
  async function quotaRooms(trx: Kysely<Database>, sites: SiteRows[]): Promise<Map<string, QuotaRoom>> {
    const rooms = new Map<string, QuotaRoom>();
    const wanted = new Map<string, { appId: string; day: string; cap: number }>();
    for (const s of sites)
      if (s.quota !== null) wanted.set(`${s.appId}\u0000${s.quota.day}`, { appId: s.appId, day: s.quota.day, cap: s.quota.cap });
    for (const key of [...wanted.keys()].sort()) {
      const { appId, day, cap } = wanted.get(key) as { appId: string; day: string; cap: number };
      const records = await writes.dayCount(trx, appId, day);
      rooms.set(key, { appId, day, cap, room: cap - records, used: 0 });
    }
    return rooms;
  }

  /** The checks of one group (see SiteGate). */
  function gate(ties: Map<string, string>, rooms: Map<string, QuotaRoom>): SiteGate {
    const taken = new Map<string, Taken>();
    const roomOf = (s: SiteRows | null) => (s?.quota == null ? undefined : rooms.get(`${s.appId}\u0000${s.quota.day}`));
    return {
      fits(s) {
        const room = roomOf(s);
        return room === undefined || room.used + (s?.anonymous.length ?? 0) <= room.room;
      },

      /**
       * `ties`: the guarded visitors' ties before the group; `taken`: what the group's applied rows do to
       * each guarded visitor. A tie excludes any other guarded plan of its visitor in the group (that one
       * is computed again after this commit); anonymous records exclude a tie.
       */
      async holds(trx, s) {
        const g = s.guard;
        if (g === null) return true;
        const key = `${s.appId}\u0000${g.visitorId}`;
        const seen = tieState(g.tiedTo, g.verified);
        const before = taken.get(key);
        if (before !== undefined) return s.tie === null && !before.tie && before.state === seen;
        if ((ties.get(key) ?? NO_TIE) !== seen) return false;
        if (s.tie !== null && g.joinedAll) {
          const joined = new Set(s.tie.joined);
          const left = await writes.anonymousIds(trx, s.appId, g.visitorId, joined.size + 1);
          if (left.some((id) => !joined.has(id))) return false;
        }
        return true;
      },

      take(s) {
        const room = roomOf(s);
        if (room !== undefined) room.used += s.anonymous.length;
        const g = s.guard;
        if (g !== null) taken.set(`${s.appId}\u0000${g.visitorId}`, { tie: s.tie !== null, state: tieState(g.tiedTo, g.verified) });
      },

      /**
       * Counted last, so that the row is locked (PostgreSQL) only while the transaction commits. Another
       * process's group that took the room since the read fails this one: the group commit then writes it
       * again in halves, each reading the count anew, down to the plan that no longer fits, which is refused alone.
       */
      async finish(trx) {
        const order = (a: QuotaRoom, b: QuotaRoom) => (a.appId === b.appId ? (a.day < b.day ? -1 : 1) : a.appId < b.appId ? -1 : 1);
        for (const r of [...rooms.values()].sort(order)) {
          if (r.used === 0) continue;
          if (!(await writes.addToDayCount(trx, { appId: r.appId, day: r.day, used: r.used, cap: r.cap }))) throw new QuotaTaken(r.appId);
        }
      },
    };
  }

  return {
    async open(trx, sites) {
      const guarded = sites.filter((s) => s.guard !== null);
      let ties = new Map<string, string>();
      if (guarded.length > 0) {
        // Guarded visitors are taken in turn (PostgreSQL: a lock per visitor until commit; SQLite's one
        // writer already serialises), so that a guard read here still holds when the transaction commits.
        await database.features.transactionLock(
          trx,
          guarded.map((s) => visitorLockKey(s.appId, (s.guard as SiteGuard).visitorId)),
        );
        ties = await tiesOf(trx, guarded);
      }
      return gate(ties, await quotaRooms(trx, sites));
    },

    closeVisit(trx, s) {
      return writes.closeVisit(trx, s.appId, s.close);
    },

    async write(trx, sites) {
      if (sites.length === 0) return;
      await writes.upsertVisits(trx, latestVisits(sites));
      await writes.insertAnonymous(
        trx,
        sites.flatMap((s) => s.anonymous),
      );
      for (const s of sites) if (s.tie !== null) await writes.tie(trx, s.tie.row, s.tie.joined);
    },
  };
}
