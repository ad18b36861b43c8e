import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Delivered {
  /** The envelope's recipients. */
  to: string[];
  raw: string;
  mail: ParsedMail;
}

export interface Mailbox {
  port: number;
  inbox: Delivered[];
  reject: Map<string, { code: number; message: string }>;
  waitFor(n: number, ms?: number): Promise<Delivered[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server in-process (smtp-server) that parses what arrives with mailparser. `reject`
 * answers chosen recipients with an SMTP error at RCPT TO (e.g. 550 for a hard bounce, 451 for a
 * temporary one). `delayMs` holds each answer to DATA that long after the message has arrived, as a
 * slow server does.
 */
export async function startMailbox(port = 0, options: { delayMs?: number } = {}): Promise<Mailbox> {
  const inbox: Delivered[] = [];
  const reject = new Map<string, { code: number; message: string }>();
  const server = new SMTPServer({
    authOptional: true,
    // A client's pooled connection does not hold the test's teardown.
    closeTimeout: 100,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const r = reject.get(address.address.toLowerCase());
      if (r === undefined) return callback();
      const err = new Error(r.message) as Error & { responseCode: number };
      err.responseCode = r.code;
      return callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (mail) => {
            inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, mail });
            if (options.delayMs) setTimeout(callback, options.delayMs);
            else callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  // A sender killed mid-mail resets its connections (the crash tests): that is the sender's story, not a failure here.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const addr = server.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return {
    port: bound,
    inbox,
    reject,
    async waitFor(n, ms = 30_000) {
      const until = Date.now() + ms;
      while (inbox.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} mails, got ${inbox.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return inbox;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
