import { type Insertable, type Kysely, type Selectable, type Updateable, sql } from 'kysely';
import { type Database, type PlaybookRunsTable, type PlaybooksTable, crossProject, timedQueue } from '../../db/index.ts';

type Db = Kysely<Database>;
export type PlaybookRow = Selectable<PlaybooksTable>;
export type RunRow = Selectable<PlaybookRunsTable>;

/** The webhook calls' queue: runs whose call is `pending`, due at `webhook_next_at`, taken by a lease on it. */
const webhookQueue = timedQueue(
  'playbook_runs',
  { status: 'webhook_status', waiting: 'pending', nextAt: 'webhook_next_at' },
  crossProject('playbook-evaluator'),
);

/** The playbooks module's SQL: playbooks, their hits and runs (migration 039). */
export const playbooksRepository = {
  async insert(db: Db, row: Insertable<PlaybooksTable>): Promise<void> {
    await db.insertInto('playbooks').values(row).execute();
  },

  find(db: Db, appId: string, id: string): Promise<PlaybookRow | undefined> {
    return db
      .selectFrom('playbooks')
      .selectAll()
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  list(db: Db, appId: string): Promise<PlaybookRow[]> {
    return db
      .selectFrom('playbooks')
      .selectAll()
      .where('app_id', '=', appId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  async count(db: Db, appId: string): Promise<number> {
    const r = await db
      .selectFrom('playbooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  update(db: Db, appId: string, id: string, patch: Updateable<PlaybooksTable>): Promise<PlaybookRow | undefined> {
    return db
      .updateTable('playbooks')
      .set(patch)
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  enabled(db: Db, appId: string): Promise<PlaybookRow[]> {
    return db
      .selectFrom('playbooks')
      .selectAll()
      .where('app_id', '=', appId)
      .where('enabled', '=', 1)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  /** The triggers of every project's enabled playbooks (which records' bodies the evaluator reads). */
  async enabledTriggers(db: Db): Promise<string[]> {
    const rows = await db
      .selectFrom('playbooks')
      .select('trigger_def')
      .distinct()
      .where('enabled', '=', 1)
      .where('deleted_at', 'is', null)
      .modifyEnd(crossProject('playbook-evaluator'))
      .execute();
    return rows.map((r) => r.trigger_def);
  },

  /** Records a hit; false when its key was recorded already. */
  async insertHit(db: Db, row: { app_id: string; playbook_id: string; key: string; customer_id: string; at: number }): Promise<boolean> {
    const r = await db
      .insertInto('playbook_hits')
      .values(row)
      .onConflict((oc) => oc.columns(['app_id', 'playbook_id', 'key']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  async hitsWithin(db: Db, appId: string, q: { playbookId: string; customerId: string; from: number; to: number }): Promise<number> {
    const r = await db
      .selectFrom('playbook_hits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('playbook_id', '=', q.playbookId)
      .where('customer_id', '=', q.customerId)
      .where('at', '>=', q.from)
      .where('at', '<=', q.to)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  async runKeyExists(db: Db, appId: string, key: string): Promise<boolean> {
    return (
      (await db.selectFrom('playbook_runs').select('id').where('app_id', '=', appId).where('run_key', '=', key).executeTakeFirst()) !==
      undefined
    );
  },

  async lastRunAt(db: Db, appId: string, playbookId: string, customerId: string): Promise<number | null> {
    const r = await db
      .selectFrom('playbook_runs')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('app_id', '=', appId)
      .where('playbook_id', '=', playbookId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return r?.at === null || r?.at === undefined ? null : Number(r.at);
  },

  /** A savepoint in the caller's transaction (one action of a run): `undo` rolls back to it, both release it. */
  async savepoint(trx: Db): Promise<{ keep(): Promise<void>; undo(): Promise<void> }> {
    await sql`savepoint playbook_action`.execute(trx);
    return {
      keep: async () => {
        await sql`release savepoint playbook_action`.execute(trx);
      },
      undo: async () => {
        await sql`rollback to savepoint playbook_action`.execute(trx);
        await sql`release savepoint playbook_action`.execute(trx);
      },
    };
  },

  async insertRun(db: Db, row: Insertable<PlaybookRunsTable>): Promise<void> {
    await db.insertInto('playbook_runs').values(row).execute();
  },

  async setOutcome(db: Db, appId: string, id: string, outcome: string): Promise<void> {
    await db.updateTable('playbook_runs').set({ outcome }).where('app_id', '=', appId).where('id', '=', id).execute();
  },

  runs(db: Db, appId: string, playbookId: string, page: { offset: number; limit: number }): Promise<RunRow[]> {
    return db
      .selectFrom('playbook_runs')
      .selectAll()
      .where('app_id', '=', appId)
      .where('playbook_id', '=', playbookId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  },

  /** Webhook calls due (pending, their time come), every project's: the caller takes each by `claimWebhook`. */
  dueWebhooks(db: Db, now: number, limit: number): Promise<RunRow[]> {
    return webhookQueue.due(db, now, limit);
  },

  /** Takes a due call for `leaseMs` (another server does not send it meanwhile); false when another took it. */
  claimWebhook(db: Db, row: RunRow, until: number): Promise<boolean> {
    return webhookQueue.claim(db, { appId: row.app_id, id: row.id, nextAt: row.webhook_next_at }, until);
  },

  async webhookDone(db: Db, row: RunRow, patch: Updateable<PlaybookRunsTable>): Promise<void> {
    await db.updateTable('playbook_runs').set(patch).where('app_id', '=', row.app_id).where('id', '=', row.id).execute();
  },
};
