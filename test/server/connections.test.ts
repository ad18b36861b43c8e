// lanes: sqlite
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../helpers/harness.ts';

let server: TestServer;
let port: number;

beforeAll(async () => {
  server = await startTestServer({ HEADERS_TIMEOUT: '1', IDLE_TIMEOUT: '2', BODY_MIN_RATE: '100', BODY_RATE_WINDOW: '1' });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await server.close();
});

/** Opens a connection, writes `text`, and resolves with what came back once the server closed it. */
function closedAfter(text: string, limitMs: number): Promise<{ answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${limitMs} ms`));
    }, limitMs);
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer });
    });
  });
}

function request(
  agent: http.Agent,
  method: string,
  path: string,
  body?: Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers = body ? { 'content-type': 'application/json', 'content-length': body.length } : {};
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('slow and silent clients', () => {
  it('closes a connection whose headers do not arrive within HEADERS_TIMEOUT', async () => {
    const { answer } = await closedAfter('GET /healthz HTTP/1.1\r\nHost: x\r\n', 6_000);
    // Node answers 408 before closing, when it can.
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection that stays silent, and serves one that talks', async () => {
    await closedAfter('', 8_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await request(agent, 'GET', '/healthz')).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('a request refused before its body is read', () => {
  it('answers with Connection: close, so the next request on that client does not fail', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Over the token call's body limit: refused on its Content-Length.
      const tooLarge = await request(agent, 'POST', '/svcuser/oauth2/access_token', Buffer.alloc(6_000_000, 'a'));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.connection).toBe('close');
      // The same client's next request goes out on a fresh connection and is answered.
      expect((await request(agent, 'GET', '/healthz')).status).toBe(200);
      // A batch without the project secret: refused before its 6 MB are read.
      const upload = await request(agent, 'POST', '/api/v1.7/app/some-app/events', Buffer.alloc(6_000_000, 'a'));
      expect(upload.status).toBe(403);
      expect(upload.headers.connection).toBe('close');
      expect((await request(agent, 'GET', '/healthz')).status).toBe(200);
      // Refused by authentication before its 300 KB body is read.
      const denied = await request(agent, 'POST', '/api/v1.7/apps', Buffer.from(JSON.stringify({ name: 'x'.repeat(300_000) })));
      expect(denied.status).toBe(403);
      expect(denied.headers.connection).toBe('close');
      expect((await request(agent, 'GET', '/healthz')).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

/** Sends `head`, then `body` in pieces of `piece` bytes every `everyMs`; resolves with the answer once the server closed. */
function sendInPieces(head: string, body: string, piece: number, everyMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(head);
    let sent = 0;
    const timer = setInterval(() => {
      socket.write(body.slice(sent, sent + piece));
      sent += piece;
      if (sent >= body.length) {
        clearInterval(timer);
        setTimeout(() => socket.end(), 200);
      }
    }, everyMs);
  });
}

describe('a body that trickles in', () => {
  const head = (length: number, type = 'application/x-www-form-urlencoded') =>
    `POST /svcuser/oauth2/access_token HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
  const boundary = 'rapportboundary';
  const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\npassword\r\n--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\n${'p'.repeat(1100)}\r\n--${boundary}--\r\n`;

  it('is cut off with 408 body_too_slow once a window brings less than BODY_MIN_RATE', async () => {
    // 10 bytes of 5000, then nothing: under 100 bytes in the first second, before IDLE_TIMEOUT.
    const { answer } = await closedAfter(`${head(5000)}grant_type`, 6_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toMatch(/connection: close/i);
    // A token call answers in the OAuth shape (the envelope elsewhere: body_too_slow).
    expect(answer).toContain('"error":"invalid_request"');
  });

  it('is read to the end while it keeps up the rate, however long it takes', async () => {
    const body = `grant_type=password&username=u&password=${'p'.repeat(1100)}`;
    // 150 bytes every 300 ms (500 bytes a second), longer than a window and than IDLE_TIMEOUT.
    const answer = await sendInPieces(head(body.length), body, 150, 300);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('invalid_request');
  });

  it('holds multipart bodies to the same rate, and reads one that keeps up', async () => {
    const type = `multipart/form-data; boundary=${boundary}`;
    const { answer } = await closedAfter(`${head(multipart.length, type)}${multipart.slice(0, 20)}`, 6_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('"error":"invalid_request"');
    const read = await sendInPieces(head(multipart.length, type), multipart, 150, 300);
    expect(read).toMatch(/^HTTP\/1\.1 400/);
    expect(read).toContain('invalid_request');
  });

  it('refuses a multipart body without Content-Length with 411', async () => {
    const chunked = `POST /svcuser/oauth2/access_token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n${multipart.slice(0, 16)}\r\n`;
    const { answer } = await closedAfter(chunked, 6_000);
    expect(answer).toMatch(/^HTTP\/1\.1 411/);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"error":"invalid_request"');
  });
});
