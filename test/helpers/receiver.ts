import http from 'node:http';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  events: { id: string; event_type: string; domainType: string; domainId: string; body: unknown }[];
}

/** A local webhook receiver: answers with the statuses the test scripts, records what arrives. */
export async function startReceiver(script: (n: number) => number = () => 200) {
  const received: ReceivedDelivery[] = [];
  let n = 0;
  const waiters: { check: () => boolean; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      n += 1;
      const status = script(n);
      if (status >= 200 && status < 300) {
        received.push({ headers: req.headers, body, events: JSON.parse(body) as ReceivedDelivery['events'] });
      }
      res.writeHead(status).end();
      for (const w of [...waiters]) {
        if (w.check()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    requests: () => n,
    /** Resolves once `check` holds (checked after every request), or rejects after `ms`. */
    until(check: () => boolean, ms = 15_000): Promise<void> {
      if (check()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('receiver: condition not met in time')), ms);
        waiters.push({
          check,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    eventIds: () => received.flatMap((r) => r.events.map((e) => e.id)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
