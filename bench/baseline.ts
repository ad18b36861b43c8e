/**
 * The ceiling for any Node server on this machine: a bare node:http server answering a fixed JSON
 * body. `PORT` and `BYTES` (the body size) come from the environment; run as a child process.
 */
import http from 'node:http';

const bytes = Number(process.env.BYTES ?? '100');
const filler = 'x'.repeat(Math.max(0, bytes - 30));
const body = JSON.stringify({ status: 1, data: { filler } });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT ?? '0'), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
