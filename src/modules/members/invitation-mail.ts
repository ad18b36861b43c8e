import type { Logger } from 'pino';

/** What an invitation mail says, to whom. */
export interface InvitationMail {
  to: string;
  projectName: string;
  inviterName: string;
  role: string;
  url: string;
  expiresAt: string;
}

/** Sends invitations by SMTP when SMTP_URL is set (nodemailer, as the verification codes); without it the inviter copies the link. */
export interface InvitationMailer {
  readonly enabled: boolean;
  send(mail: InvitationMail): Promise<void>;
}

/** The mail's text: who invites whom to what, the link, and until when it works. */
export function invitationText(mail: InvitationMail): { subject: string; text: string } {
  return {
    subject: `${mail.inviterName} invited you to ${mail.projectName} on Rapport`,
    text:
      `${mail.inviterName} invited you to join the project "${mail.projectName}" on Rapport as ${mail.role === 'Admin' ? 'an Admin' : 'a salesperson'}.\n\n` +
      `Open this link to accept (it creates your account if you have none):\n${mail.url}\n\n` +
      `The link works once, until ${mail.expiresAt}. If you did not expect this invitation, ignore this message.\n`,
  };
}

export function createInvitationMailer(smtpUrl: string | undefined, from: string, logger: Logger): InvitationMailer {
  if (smtpUrl === undefined) return { enabled: false, send: async () => {} };
  const transport = import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
  return {
    enabled: true,
    async send(mail) {
      try {
        await (await transport).sendMail({ from, to: mail.to, ...invitationText(mail) });
      } catch (err) {
        // The invitation stands whether or not the mail goes out: its link can be copied from the members page.
        logger.warn({ err }, 'members: the invitation mail could not be sent');
      }
    },
  };
}
