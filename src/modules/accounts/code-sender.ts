import type { Logger } from 'pino';
import type { Config } from '../../config.ts';

/** What a verification code is good for: registering (the verification-code call) or resetting a password (the console). */
export type CodePurpose = 'register' | 'reset';

/** Delivers verification codes. Pluggable: the default writes to the log, SMTP when configured. */
export interface CodeSender {
  send(target: { phoneNum?: string; email?: string }, code: string, purpose?: CodePurpose): Promise<void>;
}

export class LogCodeSender implements CodeSender {
  constructor(private readonly logger: Logger) {}
  async send(target: { phoneNum?: string; email?: string }, code: string, purpose: CodePurpose = 'register'): Promise<void> {
    // Deliberate: with no delivery channel configured the operator relays the code from the log.
    this.logger.info({ verification: { to: target.email ?? target.phoneNum, code, purpose } }, 'verification code issued');
  }
}

const MAILS: Record<CodePurpose, (code: string) => { subject: string; text: string }> = {
  register: (code) => ({
    subject: 'Your Rapport verification code',
    text: `Your verification code is ${code}. It is valid for 10 minutes.`,
  }),
  reset: (code) => ({
    subject: 'Your Rapport password reset code',
    text:
      `Your code to reset your Rapport password is ${code}. It is valid for 10 minutes.\n\n` +
      'If you did not ask to reset your password, ignore this message: your password stays as it is.',
  }),
};

/** E-mail codes by SMTP (nodemailer); phone numbers still go to the log, as no SMS gateway is built in. */
export class SmtpCodeSender implements CodeSender {
  private transport: Promise<{ sendMail(msg: object): Promise<unknown> }>;
  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly fallback: CodeSender,
  ) {
    this.transport = import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
  }
  async send(target: { phoneNum?: string; email?: string }, code: string, purpose: CodePurpose = 'register'): Promise<void> {
    if (!target.email) return this.fallback.send(target, code, purpose);
    const transport = await this.transport;
    await transport.sendMail({ from: this.from, to: target.email, ...MAILS[purpose](code) });
  }
}

export function createCodeSender(config: Config, logger: Logger): CodeSender {
  const log = new LogCodeSender(logger);
  return config.smtpUrl ? new SmtpCodeSender(config.smtpUrl, config.smtpFrom, log) : log;
}
