import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/** A minimal SMTP server for tests: accepts every message and hands it to the test. */
export async function startSmtpSink(): Promise<{ port: number; nextMessage(): Promise<ReceivedMail>; close(): Promise<void> }> {
  const inbox: ReceivedMail[] = [];
  const waiters: ((m: ReceivedMail) => void)[] = [];
  const deliver = (m: ReceivedMail) => {
    const w = waiters.shift();
    if (w) w(m);
    else inbox.push(m);
  };
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let mail: ReceivedMail = { from: '', to: [], data: '' };
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          deliver(mail);
          mail = { from: '', to: [], data: '' };
          socket.write('250 OK queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          mail.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          mail.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    port,
    nextMessage: () => {
      const m = inbox.shift();
      if (m) return Promise.resolve(m);
      return new Promise((resolve) => waiters.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
