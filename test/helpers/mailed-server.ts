import { afterAll, beforeAll } from 'vitest';
import { type TestServer, useTestServer } from './harness.ts';
import { type Mailbox, startMailbox } from './mailbox.ts';
import { freePort } from './process.ts';

/**
 * The file's in-process test server (useTestServer, `env` added) mailing a real SMTP server of the
 * test's (startMailbox) on a port reserved now, which SMTP_URL names: the mailbox is started before
 * the file's own beforeAll and closed after its afterAll.
 */
export async function useMailedTestServer(env: Record<string, string>): Promise<{ readonly server: TestServer; readonly box: Mailbox }> {
  const smtpPort = await freePort();
  const t = useTestServer({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...env });
  let box: Mailbox | undefined;
  beforeAll(async () => {
    box = await startMailbox(smtpPort);
  });
  afterAll(async () => {
    await box?.close();
  });
  return {
    get server() {
      return t.server;
    },
    get box() {
      if (!box) throw new Error('useMailedTestServer: the mailbox exists once beforeAll has run');
      return box;
    },
  };
}
