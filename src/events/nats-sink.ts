import type { Logger } from 'pino';
import type { FeedEvent } from './sequencer.ts';
import { toMessage } from './sequencer.ts';

interface JetStreamLike {
  publish(subject: string, payload: string, opts: { msgID: string }): Promise<{ duplicate: boolean }>;
}

/**
 * Publishes events to NATS JetStream: subject `<prefix>.<appId>.<domainType>`, the event id as
 * Nats-Msg-Id so the server drops a re-publish (after a crash between publish and cursor update).
 */
export class NatsSink {
  private js: JetStreamLike | null = null;
  private close: (() => Promise<void>) | null = null;

  constructor(
    private readonly url: string,
    private readonly stream: string,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  private async connect(): Promise<JetStreamLike> {
    if (this.js) return this.js;
    const { connect } = await import('@nats-io/transport-node');
    const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: this.url, name: 'rapport-relay' });
    const jsm = await jetstreamManager(nc);
    try {
      await jsm.streams.info(this.stream);
    } catch {
      await jsm.streams.add({ name: this.stream, subjects: [`${this.prefix}.>`] });
      this.logger.info({ stream: this.stream }, 'created NATS JetStream stream');
    }
    const js = jetstream(nc);
    this.js = { publish: (subject, payload, opts) => js.publish(subject, payload, opts) };
    this.close = async () => {
      await nc.drain();
    };
    return this.js;
  }

  subject(e: Pick<FeedEvent, 'domainType'> & { appId: string }): string {
    const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
    return `${this.prefix}.${safe(e.appId)}.${safe(e.domainType)}`;
  }

  /** Publishes in order; returns how many duplicates the server reported. */
  async publish(events: (FeedEvent & { appId: string })[]): Promise<number> {
    const js = await this.connect();
    let duplicates = 0;
    for (const e of events) {
      const ack = await js.publish(this.subject(e), JSON.stringify(toMessage(e)), { msgID: e.id });
      if (ack.duplicate) duplicates += 1;
    }
    return duplicates;
  }

  async stop(): Promise<void> {
    const close = this.close;
    this.js = null;
    this.close = null;
    if (close) await close();
  }
}
