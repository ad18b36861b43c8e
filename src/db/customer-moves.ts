import type { Kysely } from 'kysely';
import { bulkOps } from './bulk.ts';
import type { DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

/**
 * Tables whose rows name a customer in `customer_id` and move, a batch at a time, to the customer a
 * merged one was merged into (ADR 0027): each owner module calls the batch with its own tables.
 */
export type MovedCustomerTable =
  'behaviour_logs' | 'link_view_logs' | 'links' | 'notes' | 'tasks' | 'notifications' | 'alert_signals' | 'playbook_runs';

/** A merged customer whose rows move to its survivor. */
export interface CustomerMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

type MovedDb = Kysely<Record<MovedCustomerTable, { app_id: string; id: string; customer_id: string | null }>>;

/** The batch move of a merged customer's rows, for the dialect's statements. */
export function customerMoves(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Moves up to `batch` rows of `table` from the merged customer to the survivor; returns how many. */
    async moveBatch(trx: Kysely<Database>, table: MovedCustomerTable, m: CustomerMove, batch: number): Promise<number> {
      const db = trx as unknown as MovedDb;
      const ids = await db
        .selectFrom(table)
        .select('id')
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .limit(batch)
        .execute();
      if (ids.length === 0) return 0;
      await db
        .updateTable(table)
        .set({ customer_id: m.survivorId })
        // By primary key, the project checked on the rows found (SQLite would otherwise walk the project's index).
        .where(features.projectIs('app_id', m.appId))
        .where(
          bulk.anyOf(
            'id',
            ids.map((r) => r.id),
          ),
        )
        .execute();
      return ids.length;
    },
  };
}
