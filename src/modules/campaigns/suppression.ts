import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import { writeEvents } from '../../events/outbox.ts';
import { campaignsRepository as repo } from './repository.ts';

/** An address the project may no longer mail, and whose mail made it so. */
export interface Suppression {
  appId: string;
  emailNorm: string;
  reason: 'unsubscribe' | 'bounce';
  detail: string | null;
  /** The recipient row's customer and campaign. */
  customerId: string;
  postId: string;
  now: number;
}

/**
 * Suppresses an address with its MailSuppression event (docs/events.md), in one transaction: the
 * feed tells who unsubscribed or bounced (the sequences exit the customer's enrolments on it). The
 * event names the customer and the campaign, never the address.
 */
export async function suppressWithEvent(db: Kysely<Database>, s: Suppression): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await repo.suppress(trx, s.appId, s.emailNorm, s.reason, s.detail, s.now);
    const body = { appId: s.appId, customerId: s.customerId, reason: s.reason, postId: s.postId };
    await writeEvents(trx, s.appId, [{ event_type: 'create', domainType: 'MailSuppression', domainId: s.customerId, body }], s.now);
  });
}
