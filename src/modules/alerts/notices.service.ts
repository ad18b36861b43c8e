import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database, NotificationsTable } from '../../db/index.ts';
import { type AlertEventBody, PLAYBOOK_SIGNAL } from '../../events/alert-events.ts';
import { writeEvents } from '../../events/outbox.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { type AlertsDeps, customerUrl } from './common.ts';
import { settingsRepository } from './repository.ts';
import { type Facts, allWords, wordsOf } from './words.ts';
import { choiceOfRow, effectiveIn, settingsOfRow } from './settings.ts';
import { signalsRepository as repo } from './signals.repository.ts';

/** A playbook's `notify`, as the playbooks module asks for it (docs/playbooks.md "Actions"). */
export interface PlaybookNotice {
  appId: string;
  /** Makes it one alert in the project (the playbook's run). */
  key: string;
  customerId: string;
  /** The customer's owner, or these members. */
  to: 'owner' | number[];
  inbox: boolean;
  chat: boolean;
  playbookId: string;
  playbookName: string;
  /** What the customer did, in English and Chinese ("read 'Pricing' twice within 3 days"). */
  what: string;
  whatZh: string;
  at: number;
}

/** What a notice did: the members told and the channels it is posted on. */
export interface NoticeOutcome {
  members: number[];
  channels: number;
}

/**
 * Playbooks' notices (docs/alerts.md "A playbook's notice"), in the playbook's transaction: one alert
 * (signal `playbook`, once per key) in the inbox of the members named who are active and may see the
 * customer (each by their e-mail setting), and posted on every active chat channel of the project when
 * asked, whatever signals the channels take: the playbook says so. Its Alert event is written as every
 * alert's is; the relay sends the channels' deliveries, signed as each platform wants.
 */
export function createPlaybookNotices(ctx: AppContext, deps: AlertsDeps, hooks: { mailQueued: () => void }) {
  const { clock, config } = ctx;

  /** The members told: active, seeing the customer (a Sales member: their own), by their settings' language and e-mail. */
  async function recipients(trx: Kysely<Database>, appId: string, ownerId: number, users: number[]) {
    const settings = new Map((await settingsRepository.ofUsers(trx, users)).map((r) => [r.user_id, settingsOfRow(r)]));
    const choices = new Map((await settingsRepository.choicesIn(trx, appId, users)).map((r) => [r.user_id, choiceOfRow(r)]));
    const out = [];
    for (const u of users) {
      const m = await deps.access.memberRecord(appId, u).catch(() => null);
      if (m === null || m.status !== 0 || (m.role === 'Sales' && u !== ownerId)) continue;
      const eff = effectiveIn(settings.get(u) ?? settingsOfRow(null, config.timeZone), choices.get(u) ?? null);
      const mail = eff.email === 'instant' ? 'queued' : eff.email === 'digest' ? 'digest' : 'none';
      out.push({ userId: u, mail, locale: eff.locale });
    }
    return out;
  }

  return {
    /** Tells the notice in the caller's transaction; null when its key was told already or the customer is gone. */
    async tell(trx: Kysely<Database>, n: PlaybookNotice, now: number): Promise<NoticeOutcome | null> {
      const customer = (await deps.customers.liveCustomers(n.appId, [n.customerId], trx)).get(n.customerId);
      if (customer === undefined || (await repo.existingKeys(trx, n.appId, [n.key])).has(n.key)) return null;
      const facts: Facts = { signal: 'playbook', customer: customer.name, playbook: n.playbookName, what: n.what, whatZh: n.whatZh };
      const data = { playbookId: n.playbookId, playbookName: n.playbookName, what: n.what, whatZh: n.whatZh };
      const signalId = timeOrderedUuid();
      await repo.insertSignal(trx, {
        id: signalId,
        app_id: n.appId,
        key: n.key,
        signal: PLAYBOOK_SIGNAL,
        customer_id: customer.id,
        subject: n.playbookId,
        suppressed: 0,
        created_at: now,
      });
      const body: AlertEventBody = {
        id: signalId,
        appId: n.appId,
        signal: PLAYBOOK_SIGNAL,
        customerId: customer.id,
        customerName: customer.name,
        svcUserId: String(customer.ownerId),
        at: clock.format(n.at),
        url: customerUrl(config.publicBaseUrl, n.appId, customer.id),
        data,
        words: allWords(facts),
      };
      const [eventId] = await writeEvents(trx, n.appId, [{ event_type: 'create', domainType: 'Alert', domainId: signalId, body }], now);
      const told = n.inbox ? await recipients(trx, n.appId, customer.ownerId, n.to === 'owner' ? [customer.ownerId] : n.to) : [];
      const rows: Insertable<NotificationsTable>[] = told.map((r) => {
        const words = wordsOf(facts, r.locale);
        return {
          id: timeOrderedUuid(),
          app_id: n.appId,
          user_id: r.userId,
          signal_id: signalId,
          signal: PLAYBOOK_SIGNAL,
          customer_id: customer.id,
          title: words.title,
          body: words.text,
          data: JSON.stringify(data),
          inbox: 1,
          read_at: null,
          mail_status: r.mail,
          mail_attempts: 0,
          mail_next_at: r.mail === 'queued' ? now : null,
          mail_error: null,
          mailed_at: null,
          created_at: now,
        };
      });
      await repo.insertNotifications(trx, rows);
      const channels = n.chat ? await deps.channels.active(n.appId, trx) : [];
      await deps.channels.enqueue(
        trx,
        n.appId,
        channels.map((c) => ({ channelId: c.id, signalId, eventId: eventId as string })),
        now,
      );
      if (rows.some((r) => r.mail_status === 'queued')) hooks.mailQueued();
      return { members: told.map((r) => r.userId), channels: channels.length };
    },
  };
}

export type PlaybookNotices = ReturnType<typeof createPlaybookNotices>;
