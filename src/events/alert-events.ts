/**
 * The `Alert` events (docs/events.md, docs/alerts.md): what the alerts module writes to the outbox
 * for each signal, which webhooks, NATS and the feed carry like any event, and which notification
 * channels post (chat-formats.ts). Their vocabulary lives here, below the modules that share it: the
 * alerts module writes them, the webhooks module's channels subscribe to their signals.
 */

/** What alerts are sent for. */
export const ALERT_SIGNALS = ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead', 'task_due', 'mention'] as const;
/**
 * A playbook's `notify` (docs/playbooks.md): told to the members and on the channels the playbook
 * names, whatever signals they take; not among the signals members and channels choose.
 */
export const PLAYBOOK_SIGNAL = 'playbook';
export type AlertSignal = (typeof ALERT_SIGNALS)[number] | typeof PLAYBOOK_SIGNAL;

/** The languages an alert's words come in. */
export const ALERT_LOCALES = ['en-US', 'zh-CN'] as const;
export type AlertLocale = (typeof ALERT_LOCALES)[number];

/** An alert's words in one language: a headline and a sentence, plain text. */
export interface AlertWords {
  title: string;
  text: string;
}

/** The body of an `Alert` event. */
export interface AlertEventBody {
  /** The signal's id (the event's domainId). */
  id: string;
  appId: string;
  signal: AlertSignal;
  customerId: string;
  customerName: string | null;
  /** The customer's owner, as behaviour bodies carry it (the live stream filters Sales members' events by it). */
  svcUserId: string;
  /** When it happened, `yyyy-MM-dd HH:mm:ss` in the server's TIME_ZONE. */
  at: string;
  /** Where the customer opens in the console (null when the server has no public address). */
  url: string | null;
  /** What the words say, as data: the link, pages read, the task, the note, the score… */
  data: Record<string, unknown>;
  /** The words in each language. */
  words: Record<AlertLocale, AlertWords>;
}

export const isAlertSignal = (s: string): s is AlertSignal => (ALERT_SIGNALS as readonly string[]).includes(s);
export const isAlertLocale = (s: unknown): s is AlertLocale => (ALERT_LOCALES as readonly unknown[]).includes(s);
