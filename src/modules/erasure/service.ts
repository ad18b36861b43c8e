import type { Database } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { writeEvents } from '../../events/outbox.ts';
import { failure } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { createErasureRepository } from './repository.ts';

export interface ErasureResult {
  id: string;
  appId: string;
  /** The customers erased: the one named and those merged into it. */
  customerIds: string[];
  /** Rows removed (or, for directed links, unlinked) per table. */
  erased: Record<string, number>;
}

/**
 * The right to be forgotten (docs/customers.md, "Erasure"): a customer, the customers merged into
 * it and everything that names them, hard-deleted in one transaction, with an audit entry that
 * keeps no personal data (ids and counts only) and a Customer `delete` event without a body.
 */
export function createErasureService(ctx: AppContext, access: AccessService, audit: AuditRecorder) {
  const db: Kysely<Database> = ctx.database.db;
  const repo = createErasureRepository(ctx.database.features);

  async function erase(appId: string, customerId: string, actorId: number | null): Promise<ErasureResult> {
    return db.transaction().execute(async (trx) => {
      const row = await repo.customer(trx, appId, customerId);
      if (!row) throw failure('customer_not_found');
      const ids = [customerId, ...(await repo.mergedInto(trx, appId, customerId))];
      const survivors = await repo.pendingSurvivors(trx, appId, ids);
      const erased = await repo.erase(trx, appId, ids);
      await repo.settleSurvivors(trx, appId, survivors);
      const now = ctx.clock.now();
      // Consumers that keep copies learn to forget them too; the body names nothing but the ids.
      await writeEvents(
        trx,
        appId,
        ids.map((id) => ({ event_type: 'delete', domainType: 'Customer', domainId: id, body: { id, appId, status: 0, erased: true } })),
        now,
      );
      await audit(trx, {
        appId,
        actorId,
        action: 'customer.erase',
        targetType: 'customer',
        targetId: customerId,
        detail: { customers: ids, rows: erased },
      });
      return { id: customerId, appId, customerIds: ids, erased };
    });
  }

  return {
    /** The API: the project's Master or an Admin. */
    async erase(appId: string, callerId: number, customerId: string): Promise<ErasureResult> {
      await access.manager(appId, callerId);
      return erase(appId, customerId, callerId);
    },

    /** `rapport erase customer ID`: the operator, by id alone. */
    async eraseById(customerId: string): Promise<ErasureResult> {
      const appId = await repo.projectOf(db, customerId);
      if (appId === undefined) throw failure('customer_not_found');
      return erase(appId, customerId, null);
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
