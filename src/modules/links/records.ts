import type { AppContext } from '../../context.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import type { ViewerCustomer } from '../customers/service.ts';
import { visitorRecordBody } from '../ingest/service.ts';
import type { ViewerFile } from '../files/service.ts';
import type { PageDwell } from './beacons.ts';
import type { LinkRow, ViewRow } from './mapper.ts';

/** Where a visitor's request comes from, as the behaviour records name it. */
export type VisitorEnv = ReturnType<AppContext['visitors']['describe']>;
/** What the records of a link name of it. */
export type LinkRef = Pick<LinkRow, 'id' | 'type' | 'name' | 'src'>;

/** One behaviour record of a view's customer (the interface's content shapes). */
export interface LinkBehaviour {
  visitorId: string | null;
  action: 'link_view_log' | 'file_view_duration' | 'link_view_clue' | 'link_leave_log';
  when: number;
  content: Record<string, unknown>;
  env: VisitorEnv | null;
}

/** A view's leave, as its customer's `link_leave_log` record tells it. */
export interface ViewLeave {
  link: LinkRef;
  view: Pick<ViewRow, 'id' | 'view_time' | 'left_at' | 'visitor_id'>;
  at: number;
  env: VisitorEnv | null;
}

/**
 * The bodies of what the viewer writes through ingestion: behaviour records about a link for the
 * view's customer, and the Duration items of the pages read. Pure but for the clock's formatting.
 */
export function createLinkRecords(clock: Clock, base: string) {
  const fileUrl = (link: LinkRow, fileId: string | null, n: number) => `${base}/api/v1.7/app/${link.app_id}/file/${fileId ?? ''}/page/${n}`;

  function behaviourBody(customer: ViewerCustomer, r: LinkBehaviour): Record<string, unknown> {
    return {
      customerId: customer.id,
      customerName: customer.name,
      svcUserId: String(customer.ownerId),
      ...visitorRecordBody(clock, r, r.env),
    };
  }

  const linkRef = (link: LinkRef) => ({ linkId: link.id, linkType: link.type, title: link.name ?? '', linkSrc: link.src ?? 'link_view' });

  const records = {
    linkRef,

    /** A behaviour record of the customer, with its own time-ordered id. */
    behaviour(customer: ViewerCustomer, r: LinkBehaviour): { id: string; body: Record<string, unknown> } {
      return { id: timeOrderedUuid(), body: behaviourBody(customer, r) };
    },

    /** The customer's `link_leave_log` record of a view left at `leave.at`. */
    leave(customer: ViewerCustomer, leave: ViewLeave): { id: string; body: Record<string, unknown> } {
      const { link, view, at } = leave;
      return records.behaviour(customer, {
        visitorId: view.visitor_id,
        action: 'link_leave_log',
        when: at,
        content: {
          ...linkRef(link),
          linkViewLogId: view.id,
          viewTime: clock.format(view.view_time),
          leaveTime: clock.format(at),
          lastLeaveTime: view.left_at === null ? '' : clock.format(view.left_at),
        },
        env: leave.env,
      });
    },

    /** Duration item bodies of the pages that changed (positions as stored). */
    durations(link: LinkRow, file: Pick<ViewerFile, 'id' | 'name'> | null, changed: Map<number, PageDwell>, now: number) {
      return [...changed].map(([n, p]) => ({
        position: p.position,
        body: {
          fileId: file?.id ?? link.file1,
          fileName: file?.name ?? null,
          // A file link's file, or a room link's document.
          fileURL: link.type === 1 || link.type === 4 ? fileUrl(link, file?.id ?? link.file1, n) : link.website,
          pageIndex: String(n),
          duration: String(p.ms),
          sortIndex: p.position,
          createdAt: clock.format(p.firstAt),
          endedAt: clock.format(now),
          total: p.ms,
        },
      }));
    },
  };
  return records;
}

export type LinkRecords = ReturnType<typeof createLinkRecords>;
