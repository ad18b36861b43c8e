import type { Logger } from 'pino';
import type { Config } from '../../config.ts';

/** Delivers verification codes. Pluggable: the default writes to the log, SMTP when configured. */
export interface CodeSender {
  send(target: { phoneNum?: string; email?: string }, code: string): Promise<void>;
}

export class LogCodeSender implements CodeSender {
  constructor(private readonly logger: Logger) {}
  async send(target: { phoneNum?: string; email?: string }, code: string): Promise<void> {
    // Deliberate: with no delivery channel configured the operator relays the code from the log.
    this.logger.info({ verification: { to: target.email ?? target.phoneNum, code } }, 'verification code issued');
  }
}

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
  async send(target: { phoneNum?: string; email?: string }, code: string): Promise<void> {
    if (!target.email) return this.fallback.send(target, code);
    const transport = await this.transport;
    await transport.sendMail({
      from: this.from,
      to: target.email,
      subject: 'Your Rapport verification code',
      text: `Your verification code is ${code}. It is valid for 10 minutes.`,
    });
  }
}

export function createCodeSender(config: Config, logger: Logger): CodeSender {
  const log = new LogCodeSender(logger);
  return config.smtpUrl ? new SmtpCodeSender(config.smtpUrl, config.smtpFrom, log) : log;
}
