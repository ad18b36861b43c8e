import type { AppContext } from '../../context.ts';
import { AppError } from '../../http/errors.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { HistoriesService, PostCounter } from '../histories/service.ts';
import type { IngestCaller, IngestService } from '../ingest/service.ts';
import type { CampaignRow } from './mapper.ts';

/** Ingestion's batch limit: behaviour records written per call. */
const BEHAVIOUR_BATCH = 500;

/** A behaviour record of a campaign's mail, as ingestion takes it. */
export function behaviourRecord(id: string, customerId: string, action: string, when: number, content: Record<string, unknown>) {
  return {
    event_type: 'create',
    domainType: 'BehaviourLog',
    domainId: id,
    body: { customerId, action, when: new Date(when).toISOString(), content: JSON.stringify(content) },
  };
}

export type BehaviourRecord = ReturnType<typeof behaviourRecord>;

/**
 * What campaigns write through ingestion's write path: the campaign's Post record (the interface's
 * `posts`) and the behaviour records of sends, opens and clicks.
 */
export function createCampaignRecords(
  ctx: AppContext,
  deps: { accounts: AccountsService; ingest: IngestService; histories: Pick<HistoriesService, 'postExists' | 'addToPostCounters'> },
) {
  const { accounts, ingest, histories } = deps;
  const callerFor = (c: CampaignRow): IngestCaller => ({ appId: c.app_id, defaultOwner: c.owner_id, by: 'secret' });

  return {
    /**
     * Stores behaviour records (idempotent by id). A batch refused because one of its customers went
     * away since the campaign was made is written item by item, without the refused ones.
     */
    async writeBehaviour(c: CampaignRow, items: BehaviourRecord[]): Promise<void> {
      for (let i = 0; i < items.length; i += BEHAVIOUR_BATCH) {
        const chunk = items.slice(i, i + BEHAVIOUR_BATCH);
        try {
          await ingest.ingest(callerFor(c), chunk);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'invalid_events') throw err;
          for (const item of chunk) {
            try {
              await ingest.ingest(callerFor(c), [item]);
            } catch (e) {
              if (!(e instanceof AppError)) throw e;
              ctx.logger.warn({ postId: c.id, record: item.domainId, msg: e.message }, 'campaigns: behaviour record refused');
            }
          }
        }
      }
    },

    /** Adds to the counters of a campaign's Post record (sends, opens, clicks, returns), kept by histories. */
    addToPost(appId: string, postId: string, by: Partial<Record<PostCounter, number>>): Promise<void> {
      return histories.addToPostCounters(appId, postId, by);
    },

    /** The campaign's Post record, stored once (ingestion skips it when it is there). */
    async ensurePost(c: CampaignRow): Promise<void> {
      if (await histories.postExists(c.app_id, c.id)) return;
      const owner = await accounts.userById(c.owner_id);
      await ingest.ingest(callerFor(c), [
        {
          event_type: 'create',
          domainType: 'Post',
          domainId: c.id,
          body: {
            ownerId: c.owner_id,
            ownerName: owner?.name ?? null,
            title: c.title,
            sendWay: 'email',
            sendTime: new Date(c.send_at).toISOString(),
            senderCount: c.recipient_count,
          },
        },
      ]);
    },
  };
}

export type CampaignRecords = ReturnType<typeof createCampaignRecords>;
