import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { isEmail } from '../../lib/formats.ts';
import type { CustomersService } from '../customers/service.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { SequenceSettings } from './settings.service.ts';

/** Customers sharing one address whose enrolments a reply ends, at most. */
const SAME_ADDRESS_MAX = 100;

/**
 * The sender's address of an inbound mail as the mail providers post it: JSON `{from}`, Mailgun's
 * `sender`/`from`, SendGrid's `from`, Postmark's `From`/`FromFull.Email`; `Name <address>` or a bare
 * address. Null when none is found.
 */
export function senderOf(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const full = b.FromFull as { Email?: unknown } | undefined;
  const candidates = [b.sender, b.from, b.From, full?.Email];
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const text = c.trim();
    const bracketed = /<([^<>\s]+@[^<>\s]+)>/.exec(text)?.[1];
    const address = (bracketed ?? text).trim().toLowerCase();
    if (address.length <= 320 && isEmail(address)) return address;
  }
  return null;
}

/**
 * The inbound mail webhook (docs/sequences.md "Replies"): a mail to the project's reply address,
 * posted by the mail provider to the webhook's secret address. Every active or paused enrolment of the
 * project's customers with the sender's address exits `replied`. The caller answers the same whatever
 * it found (no enumeration of addresses); only an unknown token is told apart (404).
 */
export function createInboundMail(
  ctx: AppContext,
  deps: { settings: SequenceSettings; customers: Pick<CustomersService, 'mailRecipients'>; lifecycle: Lifecycle },
) {
  const db: Kysely<Database> = ctx.database.db;

  return {
    /** Whether the token is a project's webhook (the route answers 404 otherwise, before it reads the body). */
    async appOf(token: string): Promise<string | undefined> {
      return deps.settings.appByInboundToken(token);
    },

    /** The mail's sender replied: their enrolments in the project exit; how many did. */
    async received(appId: string, body: unknown): Promise<number> {
      const address = senderOf(body);
      if (address === null) return 0;
      const found = await deps.customers.mailRecipients(appId, { emailLower: address, ownerId: null });
      const customerIds = found.slice(0, SAME_ADDRESS_MAX).map((c) => c.id);
      if (customerIds.length === 0) return 0;
      const now = ctx.clock.now();
      const rows = await db
        .transaction()
        .execute((trx) => deps.lifecycle.exitCustomers(trx, { appId, customerIds, sequenceId: null, reason: 'replied' }, now));
      return rows.length;
    },
  };
}

export type InboundMail = ReturnType<typeof createInboundMail>;
