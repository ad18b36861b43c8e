/** Customers stored through the ingestion API, as the bench scripts with a server of their own make them. */
import { type BenchSession, sleep } from '../instance.ts';

const BATCH = 1000;

/**
 * Stores `count` customers, 1,000 a request: `customer(j)` gives the j-th one's id (its domainId) and
 * body. With `retries`, a batch the server sheds (`overloaded`, as it may on a busy machine) is sent
 * again after 500 ms, up to that many times. Resolves with the ids in order.
 */
export async function storeCustomers(
  base: string,
  session: Pick<BenchSession, 'appId' | 'json'>,
  count: number,
  customer: (j: number) => { id: string; body: Record<string, unknown> },
  retries = 0,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + BATCH); j++) {
      const { id, body } = customer(j);
      ids.push(id);
      batch.push({ event_type: 'create', domainType: 'Customer', domainId: id, body });
    }
    for (let attempt = 0; ; attempt += 1) {
      const res = await fetch(`${base}/api/v1.7/app/${session.appId}/events`, {
        method: 'POST',
        headers: session.json,
        body: JSON.stringify(batch),
      });
      const answer = (await res.json()) as { status: number; code?: string };
      if (answer.status === 1) break;
      if (answer.code !== 'overloaded' || attempt >= retries) throw new Error(`customers not stored: ${JSON.stringify(answer)}`);
      await sleep(500);
    }
  }
  return ids;
}
