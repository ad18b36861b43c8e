import type { AppContext } from '../../context.ts';
import { AppError, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { AccessService, Membership } from '../access/service.ts';
import { linkUrl, toCall, toClue, toLink, toPost, toViewLog } from './mapper.ts';
import {
  type CustomerRow,
  DURATION_BUCKETS,
  type HistoryReadModels,
  type PostCounter,
  callCustomer,
  createHistoriesRepository,
} from './repository.ts';
import { createViewLogsRepository } from './view-logs.repository.ts';

export type { HistoryReadModels, PostCounter } from './repository.ts';

// The write path of calls, clues and Post records, built by the composition root for ingestion.
export { type HistoryRecordRows, type HistoryRecordTable, type HistoryRecords, createHistoryRecords } from './records.service.ts';
// This module's part of erasing customers, built by the composition root for erasure.
export { type HistoryErasure, createHistoryErasure } from './erasure.service.ts';

export interface CallsInput {
  app_id: string;
  svc_user_id?: number | undefined;
  call_status?: number | undefined;
  time_range_type?: number | undefined;
}

const linkNotFound = () => failure('link_not_found');

/** Ids of history records a page of behaviour records refers to. */
export interface HistoryRefs {
  linkIds: string[];
  viewLogIds: string[];
  clueIds: string[];
  callIds: string[];
}

/**
 * The customer a call or link names, as far as the caller may see it: the detail's rule (Master and
 * Admin see every customer of the project, a Sales member only their own), else no customer.
 */
function inReach(m: Membership, customer: CustomerRow | undefined): CustomerRow | undefined {
  return customer !== undefined && (m.isManager || customer.owner_id === m.userId) ? customer : undefined;
}

/**
 * Calls, links, link view logs and mass e-mail sends (the interface's history endpoints).
 * Permission failures are NEED_AUTH envelopes (docs/interface.md §6); Sales see only their own records.
 * Links, their view logs and customers are read through their owners' read models (`reads`).
 */
/** Where a project's public addresses start (the projects service's share domains: its domain, else PUBLIC_BASE_URL). */
export type PublicBase = (appId: string) => Promise<string>;

export function createHistoriesService(ctx: AppContext, access: AccessService, reads: HistoryReadModels, publicBase: PublicBase) {
  const repo = createHistoriesRepository(reads);
  const viewLogRepo = createViewLogsRepository(reads);
  const db = ctx.database.db;
  const reader = ctx.database.reader;
  const clock = ctx.clock;
  return {
    async listCalls(callerId: number, input: CallsInput, p: Page) {
      const m = await access.membership(input.app_id, callerId, 'history');
      const userId = access.visibleOwner(m, input.svc_user_id, 'history');
      const bucket =
        input.time_range_type !== undefined && input.time_range_type !== -1 ? DURATION_BUCKETS[input.time_range_type] : undefined;
      const rows = await repo.listCalls(
        db,
        reader,
        { appId: input.app_id, userId, callStatus: input.call_status, bucket },
        p.offset,
        p.limit,
      );
      return rows.map((r) => toCall(r, inReach(m, callCustomer(r)), clock));
    },

    async listLinks(appId: string, callerId: number, input: { svc_user_id?: number | undefined; with_url?: number | undefined }, p: Page) {
      const m = await access.membership(appId, callerId, 'history');
      const creatorId = access.visibleOwner(m, input.svc_user_id, 'history');
      const rows = await repo.listLinks(db, appId, creatorId, p.offset, p.limit);
      const base = input.with_url === 1 ? await publicBase(appId) : '';
      const [counters, customers] = await Promise.all([
        repo.linkCounters(reader, appId, rows),
        repo.customersByIds(reader, appId, [...new Set(rows.map((r) => r.customer_id).filter((id): id is string => id !== null))]),
      ]);
      return rows.map((r) =>
        toLink(
          r,
          counters.get(r.id),
          inReach(m, r.customer_id ? customers.get(r.customer_id) : undefined),
          clock,
          input.with_url === 1 ? linkUrl(base, r.share_token) : undefined,
        ),
      );
    },

    /**
     * A link's view logs. A link outside the caller's reach answers link_not_found, whether it does
     * not exist, belongs to a project the caller is not in, or (for Sales) was made by someone else.
     * The creator reading them marks them seen (newViewCount/newViewerCount restart from zero).
     */
    async listViewLogs(linkId: string, callerId: number, p: Page) {
      // The link and the page in one statement; the page is shown only once the link is in reach.
      const found = await viewLogRepo.linkWithViewLogs(reader, linkId, p.offset, p.limit);
      if (!found) throw linkNotFound();
      const { link, page: rows } = found;
      try {
        const m = await access.membership(link.app_id, callerId, 'history');
        if (!m.isManager && link.creator_id !== callerId) throw linkNotFound();
      } catch (err) {
        if (err instanceof AppError && (err.code === 'NEED_AUTH' || err.code === 'app_not_found')) throw linkNotFound();
        throw err;
      }
      if (link.creator_id === callerId) await viewLogRepo.markLinkRead(db, link);
      return rows.map((r) => toViewLog(r, link.name, r.durations, r.viewer_id === null || !Number(r.viewer_is_customer), clock));
    },

    async listPosts(callerId: number, input: { app_id: string; owner_id?: number | undefined }, p: Page) {
      const m = await access.membership(input.app_id, callerId, 'history');
      const ownerId = access.visibleOwner(m, input.owner_id, 'history');
      const rows = await repo.listPosts(db, input.app_id, ownerId, p.offset, p.limit);
      return rows.map((r) => toPost(r, clock));
    },

    /**
     * One link of the project as the Link record `/links` answers (counters, its customer as far as
     * `viewer` may see it, `url` when asked), read after a change to it; undefined when there is none.
     */
    async linkRecord(viewer: Membership, linkId: string, withUrl: boolean) {
      const appId = viewer.app.id;
      const link = (await repo.linksByIds(reader, appId, [linkId])).find((l) => l.app_id === appId);
      if (link === undefined) return undefined;
      const [counters, customers] = await Promise.all([
        repo.linkCounters(reader, appId, [link]),
        link.customer_id ? repo.customersByIds(reader, appId, [link.customer_id]) : new Map<string, CustomerRow>(),
      ]);
      return toLink(
        link,
        counters.get(link.id),
        inReach(viewer, link.customer_id ? customers.get(link.customer_id) : undefined),
        clock,
        withUrl ? linkUrl(await publicBase(appId), link.share_token) : undefined,
      );
    },

    /** The creators of the project's links among these ids (link id → platform user id). */
    async linkCreators(appId: string, ids: string[]): Promise<Map<string, number>> {
      const rows = await repo.linksByIds(reader, appId, ids);
      const out = new Map<string, number>();
      for (const l of rows) if (l.creator_id !== null) out.set(l.id, l.creator_id);
      return out;
    },

    /** Whether the project's Post record with this id is stored (a campaign writes its own once). */
    postExists(appId: string, postId: string): Promise<boolean> {
      return repo.postExists(db, appId, postId);
    },

    /** Adds to the counters of the project's Post record (a campaign's sends, opens, clicks and returns). */
    addToPostCounters(appId: string, postId: string, by: Partial<Record<PostCounter, number>>): Promise<void> {
      return repo.addToPostCounters(db, appId, postId, by);
    },

    /** The tags of the project's links among these ids. */
    async linkTags(appId: string, ids: string[]): Promise<Map<string, string[]>> {
      const rows = await repo.linksByIds(reader, appId, ids);
      return new Map(rows.map((l) => [l.id, l.tags ? (JSON.parse(l.tags) as string[]) : []]));
    },

    /**
     * The records behaviour records refer to, by id, in their response shapes (calls as stored rows:
     * the behaviour record shows a few of their fields). Only the project's records are read; a
     * view log comes with its link's id, and the links of the view logs are fetched too. A directed
     * link carries its customer as `/links` does: when in `viewer`'s reach, else null.
     */
    async referencedRecords(viewer: Membership, refs: HistoryRefs) {
      const appId = viewer.app.id;
      const [viewLogs, clues, calls] = await Promise.all([
        viewLogRepo.viewLogsByIds(reader, appId, refs.viewLogIds),
        repo.cluesByIds(reader, appId, refs.clueIds),
        repo.callsByIds(reader, appId, refs.callIds),
      ]);
      const linkIds = [...new Set([...refs.linkIds, ...viewLogs.map((v) => v.link_id)])];
      const links = await repo.linksByIds(reader, appId, linkIds);
      const directedTo = [
        ...new Set(links.map((l) => (l.is_directional === 1 ? l.customer_id : null)).filter((id): id is string => id !== null)),
      ];
      const [counters, customers] = await Promise.all([
        repo.linkCounters(reader, appId, links),
        repo.customersByIds(reader, appId, directedTo),
      ]);
      const linkName = new Map(links.map((l) => [l.id, l.name]));
      return {
        viewLogs: new Map(
          viewLogs.map((v) => [
            v.id,
            {
              linkId: v.link_id,
              viewLog: toViewLog(
                v,
                linkName.get(v.link_id) ?? null,
                v.durations,
                v.viewer_id === null || !Number(v.viewer_is_customer),
                clock,
              ),
            },
          ]),
        ),
        links: new Map(
          links.map((l) => [
            l.id,
            toLink(l, counters.get(l.id), inReach(viewer, l.customer_id ? customers.get(l.customer_id) : undefined), clock, undefined),
          ]),
        ),
        clues: new Map(clues.map((c) => [c.id, toClue(c, clock)])),
        calls: new Map(calls.map((c) => [c.id, c])),
      };
    },
  };
}

export type HistoriesService = ReturnType<typeof createHistoriesService>;
