import type { Logger } from 'pino';

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
