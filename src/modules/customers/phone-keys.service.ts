import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import { phoneKey } from '../../lib/phones.ts';
import { phoneKeysRepository as repo } from './phone-keys.repository.ts';

/** Customers keyed per transaction: one short write at a time, requests served in between. */
const BATCH = 500;
/** Once every customer has its key, a look now and then (a row a server of the previous version wrote). */
const IDLE_MS = 10 * 60_000;

/**
 * The background job phone-keys (docs/customers.md, "Phone numbers"): customers stored before phone
 * keys existed get the key of their mobile number, read against their project's region, a batch at
 * a time, from the first start after the upgrade until none is left. Until then a search, the
 * duplicates and an import's matching do not find such a customer by its number.
 */
export function phoneKeysJob(
  ctx: AppContext,
  regionOf: (appId: string) => Promise<string>,
): JobDefinition & { runOnce(): Promise<number> } {
  const db = ctx.database.db;
  /** One batch keyed; returns how many customers it looked at. */
  async function runOnce(): Promise<number> {
    const rows = await repo.pending(db, BATCH);
    if (rows.length === 0) return 0;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        if (row.phone === null) continue;
        // Text without a digit has no key: the empty text stands for it, so the row is not looked at again.
        const key = phoneKey(row.phone, await regionOf(row.app_id)) ?? '';
        await repo.setKey(trx, { app_id: row.app_id, id: row.id, phone: row.phone }, key);
      }
    });
    return rows.length;
  }
  return {
    name: 'phone-keys',
    idleMs: IDLE_MS,
    runOnce,
    tick: async () => ((await runOnce()) === BATCH ? 'worked' : 'idle'),
  };
}
