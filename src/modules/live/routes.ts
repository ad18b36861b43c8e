import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { businessResponses } from '../../http/envelope.ts';
import { AppError } from '../../http/errors.ts';
import { AppIdParams } from '../projects/schemas.ts';
import type { LiveMessage, LiveService } from './service.ts';

/** A stream whose reader has fallen this far behind is ended; the client resumes with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * A message's frame, encoded once however many streams send it: a slow reader's backlog holds the
 * same bytes as every other stream's, so a hundred streams behind on one project cost its events once.
 */
const frames = new WeakMap<LiveMessage, Buffer>();
function frame(m: LiveMessage): Buffer {
  let b = frames.get(m);
  if (b === undefined) frames.set(m, (b = Buffer.from(`id: ${m.seq}\nevent: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`)));
  return b;
}

/** `GET /api/v1.7/app/{app-id}/live`: the project's events as Server-Sent Events (docs/live.md). */
export async function liveRoutes(fastify: FastifyInstance, opts: { live: LiveService; heartbeatMs: number }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { live, heartbeatMs } = opts;
  const open = new Set<() => void>();

  // Open streams end before the server waits for its connections to close (SIGTERM drain).
  app.addHook('preClose', (done) => {
    live.close();
    for (const end of [...open]) end();
    done();
  });

  const { 200: failures, ...refusals } = businessResponses(Type.Null());
  app.get(
    '/api/v1.7/app/:appId/live',
    {
      schema: {
        tags: ['Events out'],
        summary:
          'Live events of the project as Server-Sent Events (any member; a Sales member sees their own customers and links; beyond the interface)',
        params: AppIdParams,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({ maxLength: 32, description: 'the `id` of the last event received; the stream continues after it' }),
          ),
        }),
        response: {
          200: {
            description:
              "text/event-stream: each event has `id` (its feed position), `event` (`<domainType>.<event_type>`) and `data` (the feed's event message); a comment every 15 s keeps the connection open. A refusal is the usual JSON failure.",
            content: {
              'text/event-stream': { schema: Type.String() },
              'application/json': { schema: failures },
            },
          },
          ...refusals,
        },
      },
    },
    async (request, reply) => {
      const res = reply.raw;
      let ready = false;
      let ended = false;
      let heartbeat: NodeJS.Timeout | null = null;
      let unsubscribe: (() => void) | null = null;
      // What the service hands over before the answer's head is written waits for it.
      let early: LiveMessage[] = [];
      let endedBefore: string | null = null;
      const end = () => {
        if (ended) return;
        ended = true;
        if (heartbeat !== null) clearInterval(heartbeat);
        unsubscribe?.();
        open.delete(end);
        res.end();
      };
      const write = (chunks: (string | Buffer)[]) => {
        if (ended) return;
        res.cork();
        for (const c of chunks) res.write(c);
        res.uncork();
        if (res.writableLength > MAX_BUFFERED_BYTES) end();
      };
      const sink = {
        send: (messages: LiveMessage[]) => (ready ? write(messages.map(frame)) : early.push(...messages)),
        // Access gone (docs/live.md): a last comment says why, then the stream ends.
        close: (why: string) => {
          if (!ready) endedBefore = why;
          else {
            write([`: closed: ${why.replace(/[\r\n]+/g, ' ')}\n\n`]);
            end();
          }
        },
      };
      // Refusals (not a member, a bad Last-Event-ID, too many streams) are thrown here, before anything is sent.
      try {
        unsubscribe = await live.open(
          request.params.appId,
          { userId: request.user.id, token: bearerToken(request) },
          request.headers['last-event-id'],
          sink,
        );
      } catch (err) {
        // A refused stream frees its connection: a client past the caps cannot keep sockets by retrying on them.
        if (err instanceof AppError && err.kind === 'rate_limited') reply.header('connection', 'close');
        throw err;
      }
      reply.hijack();
      open.add(end);
      res.on('close', end);
      // A client gone while the stream was being opened: 'close' came before the listener did.
      if (res.destroyed || request.raw.socket.destroyed) {
        end();
        return reply;
      }
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      });
      ready = true;
      // The retry hint, and a first comment so proxies and clients see the stream open at once.
      write([`retry: 2000\n: connected\n\n`, ...early.map(frame)]);
      early = [];
      if (endedBefore !== null) sink.close(endedBefore);
      heartbeat = setInterval(() => write([': heartbeat\n\n']), heartbeatMs);
      heartbeat.unref();
      return reply;
    },
  );
}
