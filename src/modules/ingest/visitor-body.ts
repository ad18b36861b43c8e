import type { Clock } from '../../lib/time.ts';
import type { Visitor } from '../../lib/visitor.ts';

/** What a visitor did, as the viewer and the site snippet record it. */
export interface VisitorRecord {
  visitorId: string | null;
  action: string;
  when: number;
  content: Record<string, unknown>;
}

/**
 * A BehaviourLog item's body for a visitor's record, without its customer: who did what and when,
 * and what the visitor's browser and address told (docs/interface.md, BehaviourLog). The share-link
 * viewer and the site snippet add the customer when they know it.
 */
export function visitorRecordBody(clock: Clock, r: VisitorRecord, env: Visitor | null) {
  return {
    dealUserId: r.visitorId,
    action: r.action,
    userType: 0,
    when: clock.format(r.when),
    content: JSON.stringify(r.content),
    clientName: env?.clientName ?? null,
    clientVersion: env?.clientVersion ?? null,
    os: env?.os ?? null,
    osVersion: env?.osVersion ?? null,
    ip: env?.ip ?? null,
    location: env?.location ?? null,
    province: env?.province ?? null,
    city: env?.city ?? null,
  };
}
