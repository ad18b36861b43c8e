import net from 'node:net';

/**
 * Every way of writing a webhook URL that reaches this machine or its network, for the SSRF tests:
 * the loopback listener's port in each form a URL can spell an address or a loopback name.
 */
export function loopbackForms(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`, // IPv4-mapped, dotted
    `http://[::ffff:7f00:1]:${port}/`, // IPv4-mapped, hex
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`, // IPv4-compatible
    `http://[::7f00:1]:${port}/`,
    `http://[::ffff:0:7f00:1]:${port}/`, // IPv4-translated (RFC 6145)
    `http://[64:ff9b::7f00:1]:${port}/`, // NAT64
    `http://[2002:7f00:1::1]:${port}/`, // 6to4 of 127.0.0.1
    `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/`, // Teredo, client 127.0.0.1
    `http://2130706433:${port}/`, // decimal
    `http://0x7f000001:${port}/`, // hex, one number
    `http://0177.0.0.1:${port}/`, // octal
    `http://0x7f.1:${port}/`, // hex, short
    `http://127.1:${port}/`, // short
    `http://127.0.0.1.:${port}/`, // trailing dot
    `http://0.0.0.0:${port}/`, // unspecified: Linux connects it to loopback
    `http://0:${port}/`,
    `http://[::]:${port}/`,
    `http://localhost:${port}/`,
    `http://localhost.:${port}/`,
    `http://LOCALHOST:${port}/`,
    `http://app.localhost:${port}/`,
    `https://[::ffff:127.0.0.1]:${port}/`,
  ];
}

/** Private, link-local, shared, multicast and reserved targets (never reached in tests: refused before any connection). */
export const PRIVATE_TARGETS = [
  'http://10.1.2.3/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://198.18.0.1/',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://[ff02::1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[64:ff9b::a00:1]/',
  'http://[64:ff9b:1::808:808]/',
  'http://[2002:c0a8:101::]/',
  'http://[2001:db8::1]/',
];

/** A TCP listener on every loopback address (IPv4 and IPv6) that counts connections and bytes and answers nothing. */
export async function startTripwire(): Promise<{ port: number; connections(): number; bytes(): number; close(): Promise<void> }> {
  let connections = 0;
  let bytes = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', (d: Buffer) => (bytes += d.length));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    connections: () => connections,
    bytes: () => bytes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
