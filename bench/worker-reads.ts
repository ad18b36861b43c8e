/**
 * What a SQLite read would cost the server's main thread if a worker thread ran it (not built; see
 * docs/performance.md, "Known limits"): the customer detail's kind of statement on the quick kept
 * dataset, run directly and sent to a worker in batches of 1–64, two batches in flight.
 *
 *   node --import tsx bench/worker-reads.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { keptDataset } from './server.ts';

const SQL = `select json_array(c.id, c.app_id, c.name, c.phone, c.email, c.owner_id, c.status, c.created_at, c.updated_at,
  c.company, c.title, c.address,
  (select coalesce(sum(t.count), 0) from behaviour_totals t where t.customer_id = c.id and t.kind = 'action'),
  exists(select 1 from customers d where d.app_id = c.app_id and d.phone = c.phone and d.owner_id = c.owner_id
    and d.id != c.id and d.status = 1)) as r
  from customers c where c.id = ?`;

// The worker, in plain JavaScript (a worker thread does not get the TypeScript loader).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const statement = new Database(workerData.file, { readonly: true }).prepare(workerData.sql).pluck();
parentPort.on('message', (ids) => parentPort.postMessage(ids.map((id) => statement.get(id))));
`;

{
  const file = path.join(keptDataset('sqlite', 'quick').env.DATA_DIR as string, 'rapport.sqlite');
  if (!fs.existsSync(file)) throw new Error(`no ${file}`);
  const ids = Array.from({ length: 2000 }, (_, i) => `c${i}`);
  const N = 200_000;
  const statement = new Database(file, { readonly: true }).prepare(SQL).pluck();
  for (let round = 1; round <= 2; round += 1) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i += 1) JSON.parse(statement.get(ids[i % ids.length]) as string);
    const c = process.cpuUsage(c0);
    console.log(`round ${round}, direct: main thread ${((c.user + c.system) / N).toFixed(2)} µs a read`);
    const worker = new Worker(WORKER, { eval: true, workerData: { file, sql: SQL } });
    for (const batch of [1, 4, 16, 64]) {
      const reads = batch === 1 ? 50_000 : N;
      const cpu0 = process.cpuUsage();
      const elu0 = performance.eventLoopUtilization();
      await new Promise<void>((resolve) => {
        let sent = 0;
        let done = 0;
        let inFlight = 0;
        const send = () => {
          for (; inFlight < 2 && sent < reads; inFlight += 1, sent += batch)
            worker.postMessage(Array.from({ length: batch }, (_, k) => ids[(sent + k) % ids.length]));
        };
        const onMessage = (rows: string[]) => {
          for (const r of rows) JSON.parse(r);
          done += rows.length;
          inFlight -= 1;
          if (done >= reads) {
            worker.off('message', onMessage);
            resolve();
          } else send();
        };
        worker.on('message', onMessage);
        send();
      });
      const cpu = process.cpuUsage(cpu0);
      const elu = performance.eventLoopUtilization(elu0);
      console.log(
        `round ${round}, worker, batches of ${batch}: main thread ${((elu.active * 1000) / reads).toFixed(2)} µs a read, ` +
          `both threads ${((cpu.user + cpu.system) / reads).toFixed(2)} µs`,
      );
    }
    await worker.terminate();
  }
}
