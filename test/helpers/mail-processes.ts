import { afterAll, beforeAll } from 'vitest';
import { type Mailbox, startMailbox } from './mailbox.ts';
import { type ProcessDatabase, type Spawned, serveOn, useProcessDatabase } from './process.ts';

export interface MailingProcesses {
  readonly processes: ProcessDatabase;
  /** The test's slow SMTP server, from the file's beforeAll on. */
  readonly box: Mailbox;
  /** The most mails a process has in `sending` at once: three windows of five per connection (docs/campaigns.md). */
  readonly window: number;
  /** `rapport serve` on `port`, mailing the test's SMTP server through `connections` connections at 200 mails a second; `extra` added. */
  serve(port: number, extra?: Record<string, string>): Promise<Spawned>;
}

/**
 * For a file of tests that kill a server process while it mails: a fresh database for the processes
 * (useProcessDatabase) and a slow SMTP server of the test's (15 ms per message, so that a kill lands
 * while mail is going out), started in the file's beforeAll and closed in its afterAll.
 */
export function useMailingProcesses(connections: number): MailingProcesses {
  const processes = useProcessDatabase();
  let box: Mailbox | undefined;
  beforeAll(async () => {
    box = await startMailbox(0, { delayMs: 15 });
  });
  afterAll(async () => {
    await box?.close();
  });
  const mailbox = (): Mailbox => {
    if (!box) throw new Error('useMailingProcesses: the mailbox exists once beforeAll has run');
    return box;
  };
  return {
    processes,
    get box() {
      return mailbox();
    },
    window: 3 * Math.max(4, connections * 5),
    serve: (port, extra = {}) =>
      serveOn(processes, port, {
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: `smtp://127.0.0.1:${mailbox().port}`,
        MAIL_CONNECTIONS: String(connections),
        MAIL_RATE_PER_SECOND: '200',
        ...extra,
      }),
  };
}

/** Kills `server` (SIGKILL) once `atLeast` mails have arrived at `box`, and waits until it has exited. */
export async function killOnceMailing(server: Spawned, box: Mailbox, atLeast: number): Promise<void> {
  while (box.inbox.length < atLeast) await new Promise((r) => setTimeout(r, 10));
  server.child.kill('SIGKILL');
  await server.exited;
}
