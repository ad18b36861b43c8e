import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/index.ts';
import type { Clock } from './lib/time.ts';
import type { VisitorDescriber } from './lib/visitor.ts';
import type { CodeSender } from './modules/accounts/code-sender.ts';

/** How a webhook delivery attempt ended. */
export type DeliveryResult = 'delivered' | 'failed' | 'dead' | 'disabled';

/**
 * What services and the relay report about their work, for metrics (src/metrics implements it;
 * `NO_OBSERVER` ignores everything). Plain calls: nothing below the composition root knows prom-client.
 */
export interface Observer {
  /** An ingestion batch was answered: records written and duplicates skipped, or the code it was refused with. */
  ingested(outcome: { accepted: number; duplicates: number } | { refused: string }): void;
  /** A webhook delivery attempt ended. */
  webhookDelivery(result: DeliveryResult, seconds: number): void;
  /** A background job's tick ended: it worked, found nothing to do, or failed (src/lib/jobs.ts). */
  jobTicked(job: string, outcome: 'worked' | 'idle' | 'failed', seconds: number): void;
  /** A site collect call was refused because the project's daily quota of anonymous records is spent. */
  siteQuotaRefused(appId: string): void;
}

export const NO_OBSERVER: Observer = { ingested: () => {}, webhookDelivery: () => {}, jobTicked: () => {}, siteQuotaRefused: () => {} };

/** What every service is built from. Nothing here knows about HTTP, so the CLI shares it. */
export interface AppContext {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly codeSender: CodeSender;
  readonly observer: Observer;
  /** Who a visitor's request comes from: client, bot or not, place, the address as stored (docs/identity.md). */
  readonly visitors: VisitorDescriber;
}
