import type { WebhookDeliveriesTable, WebhooksTable, Database } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { WebhookRow } from './mapper.ts';

type Db = Kysely<Database>;

/** What a `webhooks` row is: a webhook of the feed, or a notification channel (docs/alerts.md). */
export type Purpose = 'events' | 'alerts';

/** SQL of webhook subscriptions, notification channels and their deliveries. */
export const webhooksRepository = {
  find(db: Db, appId: string, id: string, purpose: Purpose): Promise<WebhookRow | undefined> {
    return db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('app_id', '=', appId)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
  },

  async count(db: Db, appId: string, purpose: Purpose): Promise<number> {
    const row = await db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', appId)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async insert(db: Db, row: WebhookRow): Promise<void> {
    await db.insertInto('webhooks').values(row).execute();
  },

  list(db: Db, appId: string, purpose: Purpose): Promise<WebhookRow[]> {
    return db
      .selectFrom('webhooks')
      .selectAll()
      .where('app_id', '=', appId)
      .where('purpose', '=', purpose)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  /** A channel's new URL, secret, options or status. */
  async update(db: Db, appId: string, id: string, patch: Updateable<WebhooksTable>): Promise<void> {
    await db.updateTable('webhooks').set(patch).where('app_id', '=', appId).where('id', '=', id).where('purpose', '=', 'alerts').execute();
  },

  /** A project's active notification channels (the alerts' evaluator asks which to post a signal to). */
  activeChannels(db: Db, appId: string): Promise<Pick<WebhookRow, 'id' | 'kind' | 'options'>[]> {
    return db
      .selectFrom('webhooks')
      .select(['id', 'kind', 'options'])
      .where('app_id', '=', appId)
      .where('purpose', '=', 'alerts')
      .where('status', '=', 'active')
      .orderBy('id')
      .execute();
  },

  /** Deliveries of signals to channels, each made once: one whose channel already has its key is skipped. */
  async insertDeliveriesOnce(db: Db, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 200) {
      await db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 200))
        .onConflict((oc) => oc.columns(['app_id', 'webhook_id', 'dedupe_key']).doNothing())
        .execute();
    }
  },

  /** Deletes a webhook and its deliveries (run it in a transaction). */
  async remove(db: Db, appId: string, id: string): Promise<void> {
    await db.deleteFrom('webhook_deliveries').where('app_id', '=', appId).where('webhook_id', '=', id).execute();
    await db.deleteFrom('webhooks').where('app_id', '=', appId).where('id', '=', id).execute();
  },

  /** A page of a webhook's deliveries, newest first. */
  deliveries(db: Db, appId: string, webhookId: string, offset: number, limit: number) {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('app_id', '=', appId)
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  },

  async reactivate(db: Db, appId: string, id: string): Promise<void> {
    await db
      .updateTable('webhooks')
      .set({ status: 'active', disabled_reason: null })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .execute();
  },

  async insertDelivery(db: Db, row: Insertable<WebhookDeliveriesTable>): Promise<void> {
    await db.insertInto('webhook_deliveries').values(row).execute();
  },

  /** Sends a webhook's dead-lettered deliveries again from now; returns how many. */
  async requeueDead(db: Db, appId: string, webhookId: string, now: number): Promise<number> {
    const res = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .where('app_id', '=', appId)
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'dead')
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  },
};
