/**
 * A local SMTP server in the bench script's own process (smtp-server) that reads every message and
 * keeps nothing: the mail benches' receiver.
 */
import { SMTPServer } from 'smtp-server';
import { freePort } from '../instance.ts';

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`. */
  url: string;
  /** Messages read to their end so far. */
  received(): number;
  /** `performance.now()` when the latest message was read to its end (0 before the first). */
  lastAt(): number;
  /** Stops listening. */
  close(): Promise<void>;
}

/** Starts the sink on a free port of 127.0.0.1 (no authentication, no STARTTLS, no log). */
export async function startSmtpSink(): Promise<SmtpSink> {
  let received = 0;
  let lastAt = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received += 1;
        lastAt = performance.now();
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received: () => received,
    lastAt: () => lastAt,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
