// lanes: sqlite postgres
import { describe, expect, it } from 'vitest';
import { type Spawned, behaviourRecords, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

const processes = useProcessDatabase();

async function serve(port: number, workers = '1'): Promise<Spawned> {
  const server = runCli(['serve'], {
    ...processes.db.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    RAPPORT_INSECURE_FAST_HASH: '1',
    WORKERS: workers,
  });
  processes.started(server);
  await waitForOk(`http://127.0.0.1:${port}/healthz`);
  return server;
}

describe('kill -9 under many small writes', () => {
  // The embedded relay runs in both (the default); with WORKERS=2 the primary is killed, and its workers end with it.
  it.each(['1', '2'])('loses no acknowledged record (WORKERS=%s)', { timeout: 90_000 }, async (workers) => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await serve(port, workers);
    const project = await provisionProject(base, processes.db.env, `1385555${workers.padStart(4, '0')}`);
    const post = project.ingest;
    const customer = await post([{ event_type: 'create', domainType: 'Customer', domainId: `kept-${workers}`, body: { name: 'Kept' } }]);
    expect(await customer.json()).toMatchObject({ status: 1 });

    // 32 producers send one record per request until the server dies under them.
    const acknowledged: string[] = [];
    let stop = false;
    const producer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const id = `k${workers}-${n}-${i}`;
        try {
          const res = await post([
            {
              event_type: 'create',
              domainType: 'BehaviourLog',
              domainId: id,
              body: { customerId: `kept-${workers}`, action: 'send_message', when: '2026-11-01 10:00:00' },
            },
          ]);
          const answer = (await res.json()) as { status: number; data?: { accepted: number } };
          if (answer.status === 1 && answer.data?.accepted === 1) acknowledged.push(id);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const producing = Array.from({ length: 32 }, (_, n) => producer(n));
    while (acknowledged.length < 500) await new Promise((r) => setTimeout(r, 20));
    first.child.kill('SIGKILL');
    await first.exited;
    stop = true;
    await Promise.all(producing);
    expect(acknowledged.length).toBeGreaterThanOrEqual(500);

    // Started again on the same database, it has every record it acknowledged.
    const second = await serve(port);
    const stored = await behaviourRecords(base, project, `kept-${workers}`);
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
