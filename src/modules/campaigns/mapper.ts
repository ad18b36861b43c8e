import type { Selectable } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { mailEngagementReadModel } from './engagement.repository.ts';

export type CampaignRow = Selectable<Database['campaigns']>;
export type RecipientRow = Selectable<Database['campaign_recipients']>;

/** What a campaign reads of a customer: who owns it, its address and its merge values. */
export interface RecipientCustomer {
  id: string;
  owner_id: number;
  name: string | null;
  email: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
}

/** The recipient states, in the order the progress shows them. */
export const RECIPIENT_STATES = ['queued', 'sending', 'sent', 'failed', 'unknown', 'suppressed', 'cancelled'] as const;

/** A campaign and its progress, as the campaign endpoints answer it. */
export function toCampaign(row: CampaignRow, counts: Map<string, number>, format: (ms: number | null) => string | null) {
  const states = Object.fromEntries(RECIPIENT_STATES.map((s) => [s, counts.get(s) ?? 0])) as Record<
    (typeof RECIPIENT_STATES)[number],
    number
  >;
  return {
    postId: row.id,
    appId: row.app_id,
    ownerId: String(row.owner_id),
    title: row.title,
    status: row.status,
    sendAt: format(row.send_at),
    createdAt: format(row.created_at),
    finishedAt: format(row.finished_at),
    recipientCount: row.recipient_count,
    states,
    /** Recipients no longer waiting (everything but queued and sending). */
    done: row.recipient_count - states.queued - states.sending,
  };
}

export type CampaignView = ReturnType<typeof toCampaign>;

/** The recipients' read model other modules' repositories join (engagement.repository.ts; the sequences' funnel). */
export type MailEngagementReadModel = typeof mailEngagementReadModel;
