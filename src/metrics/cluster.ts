import cluster from 'node:cluster';

/** A worker asks the primary for every worker's metrics added up; the primary answers with the text. */
const ASK = 'rapport:metrics';
const ANSWER = 'rapport:metrics-text';
/** Past this, a worker answers its scrape with 503: the primary (or a worker it waits for) is stuck. */
const ASK_TIMEOUT_MS = 8000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

let asked = 0;
const pending = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
let listening = false;

/** In a worker: the metrics of every worker, added up by the primary (the scrape went to the API port). */
export function askPrimary(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      const answer = message as Answer | null;
      if (answer?.type !== ANSWER) return;
      const waiter = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.text !== undefined) waiter?.resolve(answer.text);
      else waiter?.reject(new Error(answer.error ?? 'no metrics'));
    });
  }
  const id = ++asked;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the primary did not answer with the metrics'));
    }, ASK_TIMEOUT_MS);
    pending.set(id, {
      resolve: (text) => {
        clearTimeout(timer);
        resolve(text);
      },
      reject: (err) => {
        clearTimeout(timer);
        reject(err);
      },
    });
    process.send?.({ type: ASK, id });
  });
}

/**
 * In the primary: the metrics of every worker, added up (prom-client's AggregatorRegistry asks each
 * worker over IPC), for the metrics port the primary serves and for workers asking on behalf of a
 * scrape of the API port.
 */
export async function clusterMetrics(): Promise<{ text(): Promise<string>; contentType: string }> {
  const { AggregatorRegistry } = await import('prom-client');
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    const ask = message as { type?: unknown; id?: unknown } | null;
    if (ask?.type !== ASK || typeof ask.id !== 'number') return;
    const id = ask.id;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text } satisfies Answer),
      (err: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id, error: String(err) } satisfies Answer),
    );
  });
  return { text: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
}
