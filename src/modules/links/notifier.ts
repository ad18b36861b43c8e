import type { Logger } from 'pino';
import type { AppContext } from '../../context.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { ViewerCustomer } from '../customers/service.ts';
import type { LinkRow } from './mapper.ts';
import type { VisitorEnv } from './records.ts';

/** An e-mail to a link's owner (docs/links.md, "Alerts"). */
export interface OwnerMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends owners' alerts: by SMTP when SMTP_URL is set (nodemailer, as the verification codes), else nowhere. */
export interface OwnerNotifier {
  readonly enabled: boolean;
  send(mail: OwnerMail): Promise<void>;
}

export function createOwnerNotifier(smtpUrl: string | undefined, from: string, logger: Logger): OwnerNotifier {
  if (smtpUrl === undefined) return { enabled: false, send: async () => {} };
  const transport = import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
  return {
    enabled: true,
    async send(mail) {
      try {
        await (await transport).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (err) {
        // An alert is a courtesy: the view is recorded whether or not the mail goes out.
        logger.warn({ err }, 'links: the owner alert could not be sent');
      }
    },
  };
}

/**
 * E-mails the link's creator when a customer opens the link for the first time (with SMTP configured),
 * if the alerts would tell them and their settings take `deck_opened` by instant e-mail
 * (`mailsFirstOpen`). Not for a link directed at this customer: its open is the alerts' `deck_opened`
 * signal, told where each member chose (docs/alerts.md).
 */
export function createFirstOpenMail(
  ctx: AppContext,
  deps: {
    notifier: OwnerNotifier;
    mailsFirstOpen: ((userId: number, appId: string, customerOwnerId: number) => Promise<boolean>) | undefined;
    accounts: Pick<AccountsService, 'userById'>;
    /** Whether the customer viewed the link before, in another view than this one. */
    viewedBefore: (link: LinkRow, customerId: string, viewId: string) => Promise<boolean>;
  },
) {
  const { clock, logger } = ctx;
  return async (link: LinkRow, customer: ViewerCustomer, viewId: string, env: VisitorEnv): Promise<void> => {
    if (!deps.notifier.enabled || link.creator_id === null || deps.mailsFirstOpen === undefined) return;
    if (link.is_directional === 1 && link.customer_id === customer.id) return;
    try {
      if (!(await deps.mailsFirstOpen(link.creator_id, link.app_id, customer.ownerId))) return;
      if (await deps.viewedBefore(link, customer.id, viewId)) return;
      const owner = await deps.accounts.userById(link.creator_id);
      if (!owner?.email) return;
      const who = customer.name ?? 'A customer';
      const where = [env.client, env.location].filter(Boolean).join(', ');
      await deps.notifier.send({
        to: owner.email,
        subject: `${who} opened “${link.name ?? 'your link'}”`,
        text:
          `${who} opened your link “${link.name ?? ''}” for the first time at ${clock.format(clock.now())}` +
          `${where ? ` (${where})` : ''}.\n\nTheir reading shows in Rapport as they go: ${ctx.config.publicBaseUrl}/l/${link.share_token} is the link.\n`,
      });
    } catch (err) {
      logger.warn({ err, linkId: link.id }, 'links: the owner alert failed');
    }
  };
}
