// lanes: sqlite
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger, createLogger } from '../../src/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('LazyChildLogger (the per-request logger)', () => {
  it('writes what a pino child would, with the request id, and redacts secrets', async () => {
    const { lines, stream } = capture();
    const log = new LazyChildLogger(createLogger('info', stream), { reqId: 'req-7' }, {});
    log.info({ password: 'hunter2', n: 1 }, 'hello');
    log.error({ err: new Error('boom') }, 'failed');
    log.child({ part: 'inner' }).warn('nested');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, l.reqId, l.level])).toEqual([
      ['hello', 'req-7', 30],
      ['failed', 'req-7', 50],
      ['nested', 'req-7', 40],
    ]);
    expect(lines[0]).toMatchObject({ password: '[REDACTED]', n: 1 });
    expect(lines[1]).toMatchObject({ err: { message: 'boom', type: 'Error' } });
    expect(lines[2]).toMatchObject({ part: 'inner' });
  });

  it('drops lines below the level without making the child, and follows a level of its own', async () => {
    const { lines, stream } = capture();
    const parent = createLogger('warn', stream);
    const log = new LazyChildLogger(parent, { reqId: 'r' }, {});
    log.info('not written');
    log.debug('not written');
    expect((log as unknown as { made: unknown }).made).toBeUndefined();
    expect(log.level).toBe('warn');
    expect(log.isLevelEnabled('info')).toBe(false);
    const verbose = new LazyChildLogger(parent, { reqId: 'v' }, { level: 'debug' });
    expect(verbose.isLevelEnabled('debug')).toBe(true);
    verbose.debug('written');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([['written', 'v']]);
  });
});
