import type { BehaviourLogsTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import { OVERVIEW_COUNTERS, type OverviewCounter, actionSpec, countsAsActivity } from './actions.ts';

type BehaviourRow = Selectable<BehaviourLogsTable>;

/** The Behaviour record's own fields (joins are added by the service). */
export function toBehaviour(r: BehaviourRow, clock: Clock) {
  return {
    id: r.id,
    appId: r.app_id,
    svcUserId: r.svc_user_id,
    dealUserId: r.deal_user_id ?? r.customer_id,
    dealUserName: r.customer_name,
    action: r.action,
    params: r.params,
    remote_duration: r.remote_duration,
    description: r.description,
    when: clock.format(r.when_at),
    content: r.content,
    clientName: r.client_name,
    clientVersion: r.client_version,
    os: r.os,
    osVersion: r.os_version,
    net: r.net,
    ip: r.ip,
    location: r.location,
    province: r.province,
    city: r.city,
    type: r.user_type,
    createdTime: clock.format(r.created_at),
  };
}

const LIST_SIZE = 10;

/** Tag colours: a fixed palette indexed by a hash of the tag, so a tag keeps its colour. */
const TAG_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
export function tagColour(tag: string): string {
  let h = 2166136261;
  for (let i = 0; i < tag.length; i += 1) h = Math.imul(h ^ tag.charCodeAt(i), 16777619);
  return TAG_COLOURS[(h >>> 0) % TAG_COLOURS.length] as string;
}

const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, LIST_SIZE);

/** Folds rollup sums into the overview: `total` the customer's activity (countsAsActivity), counters from actions, lists by num desc (ties by name), 10 at most. */
export function toOverview(sums: { kind: string; key: string; num: number }[]) {
  const counters = Object.fromEntries(OVERVIEW_COUNTERS.map((c) => [c, 0])) as Record<OverviewCounter, number>;
  let total = 0;
  const lists = { site: new Map<string, number>(), app_page: new Map<string, number>(), tag: new Map<string, number>() };
  for (const s of sums) {
    const num = Number(s.num);
    if (s.kind === 'action') {
      if (countsAsActivity(s.key)) total += num;
      const counter = actionSpec(s.key)?.counter;
      if (counter) counters[counter] += num;
    } else if (s.kind === 'site' || s.kind === 'app_page' || s.kind === 'tag') {
      lists[s.kind].set(s.key, num);
    }
  }
  return {
    total,
    ...counters,
    webAccessData: top(lists.site).map(([site, num]) => ({ site, num })),
    customerTag: top(lists.tag).map(([tag, num]) => ({ tag, num, color: tagColour(tag) })),
    appViewPageList: top(lists.app_page).map(([title, num]) => ({ num, title })),
  };
}

/** Actions whose records join their Call record (handleState). */
export const CALL_ACTIONS = new Set(['call', 'call_end']);
