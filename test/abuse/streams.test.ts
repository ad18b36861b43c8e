// lanes: sqlite postgres
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AbuseServer, type AbuseUser, addMember, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

/**
 * Live streams (docs/live.md) against `npm start`: a member removed or a token revoked while
 * streaming stops receiving and is cut off within 5 s, and one user (or many) opening streams by
 * the hundred is refused past the caps while everyone else is served.
 */
const PER_USER = 5;
const PER_PROCESS = 30;
const s = useAbuseServer({ LIVE_MAX_STREAMS_PER_USER: String(PER_USER), LIVE_MAX_STREAMS: String(PER_PROCESS) });

interface Stream {
  status: number;
  names: string[];
  comments: string[];
  ended: boolean;
  endedAt: number;
  close(): void;
}

/** Opens a project's stream and reads it as it comes: the customers' names of its events, its comments, its end. */
async function openStream(server: AbuseServer, appId: string, user: AbuseUser): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${server.base}/api/v1.7/app/${appId}/live`, { headers: user.auth, signal: controller.signal });
  const stream: Stream = { status: res.status, names: [], comments: [], ended: false, endedAt: 0, close: () => controller.abort() };
  if (res.status !== 200) {
    await res.arrayBuffer();
    stream.ended = true;
    return stream;
  }
  void (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          for (const line of buffer.slice(0, cut).split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            if (line.startsWith('data:')) {
              const data = JSON.parse(line.slice(5)) as { domainType: string; body: { name?: string } };
              if (data.domainType === 'Customer') stream.names.push(String(data.body.name));
            }
          }
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // aborted by the test
    }
    stream.ended = true;
    stream.endedAt = Date.now();
  })();
  return stream;
}

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function post(server: AbuseServer, user: AbuseUser, path: string, body: unknown): Promise<{ status: number }> {
  const res = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { ...user.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { status: number };
}

/** Runs the openings `WAVE` at a time, each wave at once. */
const WAVE = 10;
async function waves(openings: (() => Promise<Stream>)[]): Promise<Stream[]> {
  const out: Stream[] = [];
  for (let i = 0; i < openings.length; i += WAVE) out.push(...(await Promise.all(openings.slice(i, i + WAVE).map((f) => f()))));
  return out;
}

/** Open file descriptors of the server process. */
const fds = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

describe('live streams', () => {
  it('a member removed while streaming, and a revoked token, stop receiving and are cut off within 5 s', async () => {
    const server = s.server;
    const master = await signUp(server);
    const { appId } = await createProject(server, master, 'Streamed');
    const [removed, revoked] = [await signUp(server), await signUp(server)];
    await addMember(server, master, appId, removed, 'Admin');
    await addMember(server, master, appId, revoked, 'Admin');
    const other = await signUp(server);
    const theirs = await createProject(server, other, 'Elsewhere');
    const watcher = await openStream(server, appId, master);
    const streams = [await openStream(server, appId, removed), await openStream(server, appId, revoked)];
    expect([watcher, ...streams].map((x) => x.status)).toEqual([200, 200, 200]);
    await until('the streams to open', () => [watcher, ...streams].every((x) => x.comments.includes('connected')));
    expect((await post(server, master, `/api/v1.7/app/${appId}/member/${master.id}/customers`, { name: 'Before' })).status).toBe(1);
    await until('the customer made before', () => streams.every((x) => x.names.includes('Before')));

    const attack = await underAttack(
      server,
      async () => {
        const lost = Date.now();
        expect((await post(server, master, `/api/v1.7/app/${appId}/member/${removed.id}`, {})).status).toBe(1);
        const revoke = await fetch(`${server.base}/svcuser/oauth2/revoke`, {
          method: 'POST',
          headers: { authorization: server.basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=${encodeURIComponent(revoked.token)}`,
        });
        expect(revoke.status).toBe(200);
        // Written after the loss: reaches the Master, never the removed member or the revoked token.
        expect(
          (
            await post(server, master, `/api/v1.7/app/${appId}/member/${master.id}/customers`, {
              name: 'After',
              email: 'after@example.com',
            })
          ).status,
        ).toBe(1);
        await until('the customer made after, on the Master stream', () => watcher.names.includes('After'));
        await until('the end of both streams', () => streams.every((x) => x.ended));
        return Math.max(...streams.map((x) => x.endedAt - lost));
      },
      () => fetch(`${server.base}/api/v1.7/app/${theirs.appId}`, { headers: other.auth }),
    );
    console.info(`streams cut off ${attack.result} ms after the loss; another user's slowest answer ${Math.round(attack.worstMs)} ms`);
    expect(attack.result).toBeLessThan(5000);
    for (const x of streams) {
      expect(x.names).toEqual(['Before']);
      expect(x.comments.some((c) => c.startsWith('closed:'))).toBe(true);
    }
    expect(watcher.ended).toBe(false);
    expect(server.alive()).toBe(true);
    expect(attack.worstMs).toBeLessThan(1000);
    // Neither may open it again.
    expect((await openStream(server, appId, removed)).status).toBe(403);
    expect((await openStream(server, appId, revoked)).status).toBe(403);
    watcher.close();
  });

  it('hundreds of streams from one user, then from many, are refused past the caps; everyone else is served', async () => {
    const server = s.server;
    const attacker = await signUp(server);
    const { appId } = await createProject(server, attacker, 'Many streams');
    const crowd = await Promise.all(Array.from({ length: 6 }, () => signUp(server)));
    for (const u of crowd) await addMember(server, attacker, appId, u, 'Sales');
    const victim = await signUp(server);
    const theirs = await createProject(server, victim, 'Victim');
    const probe = `/api/v1.7/app/${theirs.appId}/member/all/customers`;
    const before = await (await fetch(`${server.base}${probe}`, { headers: victim.auth })).json();
    const fdsBefore = fds(server.pid);

    const attack = await underAttack(
      server,
      async () => {
        // One user, 200 in waves of 10 (each wave at once); then six more users, 30 each: the process cap is reached.
        const own = await waves(Array.from({ length: 200 }, () => () => openStream(server, appId, attacker)));
        const many = await waves(crowd.flatMap((u) => Array.from({ length: 30 }, () => () => openStream(server, appId, u))));
        return { own, many };
      },
      () => fetch(`${server.base}${probe}`, { headers: victim.auth }),
    );
    const { own, many } = attack.result;
    const opened = [...own, ...many].filter((x) => x.status === 200);
    const fdsDuring = fds(server.pid);
    console.info(
      `${opened.length} streams open of ${own.length + many.length} asked; fds ${fdsBefore} → ${fdsDuring}; ` +
        `another user's slowest answer ${Math.round(attack.worstMs)} ms; peak RSS ${Math.round(attack.peakRssMb)} MB`,
    );
    expect(own.filter((x) => x.status === 200)).toHaveLength(PER_USER);
    expect(opened).toHaveLength(PER_PROCESS);
    expect([...own, ...many].every((x) => x.status === 200 || x.status === 429)).toBe(true);
    // Refused connections are closed, so the process holds about one socket per open stream.
    expect(fdsDuring - fdsBefore).toBeLessThan(PER_PROCESS + WAVE);
    expect(server.alive()).toBe(true);
    expect(attack.worstMs).toBeLessThan(1000);
    expect(await (await fetch(`${server.base}${probe}`, { headers: victim.auth })).json()).toEqual(before);
    for (const x of opened) x.close();
  });
});
