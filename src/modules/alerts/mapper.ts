import type { Clock } from '../../lib/time.ts';
import { customerUrl } from './common.ts';
import type { MemberSettings, ProjectChoice } from './settings.ts';

/** A member's settings as the API answers them. */
export function toSettings(
  s: MemberSettings,
  extra: {
    emailAddress: string | null;
    nextDigestAt: number | null;
    projects: { appId: string; name: string | null; role: string; choice: ProjectChoice }[];
  },
  clock: Clock,
) {
  return {
    signals: s.signals,
    readThreshold: s.readThreshold,
    revisitDays: s.revisitDays,
    inbox: s.inbox,
    email: s.email,
    timeZone: s.timeZone,
    digestHour: s.digestHour,
    locale: s.locale,
    emailAddress: extra.emailAddress,
    nextDigestAt: clock.format(extra.nextDigestAt),
    projects: extra.projects.map((p) => ({
      appId: p.appId,
      name: p.name,
      role: p.role,
      scope: p.choice.scope,
      signals: p.choice.signals,
      readThreshold: p.choice.readThreshold,
      revisitDays: p.choice.revisitDays,
    })),
  };
}

/** A notification as the inbox lists it. */
export interface InboxRow {
  id: string;
  app_id: string;
  signal: string;
  customer_id: string;
  customer_name: string | null;
  title: string;
  body: string;
  data: string;
  read_at: number | null;
  created_at: number;
}

export function toNotification(r: InboxRow, projectName: string | null, clock: Clock, publicBaseUrl: string) {
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(r.data) as Record<string, unknown>;
  } catch {
    // A row written by a newer server: shown without its data.
  }
  return {
    id: r.id,
    appId: r.app_id,
    projectName,
    signal: r.signal,
    customerId: r.customer_id,
    customerName: r.customer_name,
    title: r.title,
    text: r.body,
    data,
    url: customerUrl(publicBaseUrl, r.app_id, r.customer_id),
    read: r.read_at !== null,
    readAt: clock.format(r.read_at),
    createdAt: clock.format(r.created_at),
  };
}
