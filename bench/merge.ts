/**
 * Customer merge figures: customers each with 100,000 history records (99,000 behaviour records and
 * 1,000 calls, stored through the ingestion API), then merged into another customer through
 * `POST …/customer/merge`: how long the merge takes to answer (its transaction has committed when it
 * answers), and how long the background job then takes to move the history to the survivor. A fresh
 * database of the dialect, the app built in-process (as the tests build it) and called through
 * Fastify's inject.
 *   node --import tsx bench/merge.ts [--db sqlite|postgres] [--rounds N]
 * `npm run bench` runs it too (the "merge" row).
 */
import { option } from './options.ts';
import { withInProcessApp } from './support/in-process.ts';
import { runMain } from './support/report.ts';

const DB = option('db', 'sqlite');
const ROUNDS = Number(option('rounds', '3'));
const RECORDS = 100_000;
const CALLS = 1_000;
const BATCH = 1_000;

const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function main(): Promise<void> {
  await withInProcessApp(DB, 'merge-', async ({ services, app, auth, userId, appId, secret }) => {
    const create = async (name: string) => {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1.7/app/${appId}/member/${userId}/customers`,
        headers: auth,
        payload: { name, phone: '13800000000' },
      });
      return res.json().data.id as string;
    };
    const ingest = async (items: unknown[]) => {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1.7/app/${appId}/events`,
        headers: { 'x-app-secret': secret },
        payload: items,
      });
      if (res.json().status !== 1) throw new Error(`ingestion failed: ${res.body.slice(0, 300)}`);
    };

    const commits: number[] = [];
    const moves: number[] = [];
    const now = Date.now();
    for (let round = 0; round < ROUNDS; round += 1) {
      const main = await create(`Main ${round}`);
      const merged = await create(`Merged ${round}`);
      const loadStarted = performance.now();
      for (let i = 0; i < RECORDS - CALLS; i += BATCH) {
        const items = [];
        for (let j = i; j < Math.min(i + BATCH, RECORDS - CALLS); j += 1) {
          items.push({
            event_type: 'create',
            domainType: 'BehaviourLog',
            domainId: `r${round}-b${j}`,
            body: { customerId: merged, action: j % 3 === 0 ? 'send_message' : 'visit_record', when: fmt(now - (j % 365) * 86_400_000) },
          });
        }
        await ingest(items);
      }
      for (let i = 0; i < CALLS; i += BATCH) {
        const items = [];
        for (let j = i; j < Math.min(i + BATCH, CALLS); j += 1) {
          items.push({
            event_type: 'create',
            domainType: 'Call',
            domainId: `r${round}-c${j}`,
            body: {
              fromUserType: 2,
              fromUserId: String(userId),
              toUserType: 1,
              toUserId: merged,
              callStatus: 1,
              callTime: fmt(now - j * 60_000),
            },
          });
        }
        await ingest(items);
      }
      console.error(`round ${round}: ${RECORDS} records stored in ${Math.round(performance.now() - loadStarted)} ms`);
      const started = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1.7/app/${appId}/member/${userId}/customer/merge`,
        headers: auth,
        payload: { main_customer_id: main, merge_user_ids: merged },
      });
      commits.push(performance.now() - started);
      if (res.json().status !== 1) throw new Error(`merge failed: ${res.body.slice(0, 300)}`);
      const moveStarted = performance.now();
      await services.merges.runPending(0);
      moves.push(performance.now() - moveStarted);
    }
    const sorted = [...commits].sort((a, b) => a - b);
    const out = {
      database: DB,
      historyRecords: RECORDS,
      rounds: ROUNDS,
      commitMs: commits.map((x) => Math.round(x * 10) / 10),
      commitMedianMs: Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10,
      commitMaxMs: Math.round((sorted[sorted.length - 1] ?? 0) * 10) / 10,
      backgroundMoveMs: moves.map((x) => Math.round(x)),
      backgroundRecordsPerSecond: Math.round(RECORDS / (moves.reduce((a, b) => a + b, 0) / moves.length / 1000)),
    };
    console.log(JSON.stringify(out, null, 2));
  });
}

runMain(main);
