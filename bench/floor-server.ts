/**
 * The server that bench/floor.ts measures: the real app (buildApp over the kept dataset, as the
 * bundled `rapport serve` runs it) with probe routes added beside the real ones, each doing one
 * part of a customer detail request; or, with FLOOR_SERVER=fastify, a bare Fastify with one route.
 * Bundled and started by bench/floor.ts; never part of the product.
 */
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { preparedQuery } from '../src/db/prepared.ts';
import { Envelope, ok } from '../src/http/envelope.ts';
import { createLogger } from '../src/logger.ts';
import { customersRepository } from '../src/modules/customers/repository.ts';
import { Customer } from '../src/modules/customers/schemas.ts';
import { openContext } from '../src/runtime.ts';
import { createServices } from '../src/services.ts';

const small = { 200: { type: 'object', properties: { status: { type: 'string' } } } } as const;
const port = Number(process.env.PORT);

if (process.env.FLOOR_SERVER === 'fastify') {
  // Fastify 5 alone: one route with a response schema, no hooks, no logger.
  const app = Fastify({ logger: false });
  app.get('/api/v1.7/customer/:id/detail', { schema: { response: small } }, async () => ({ status: 'ok' }));
  await app.listen({ port, host: '127.0.0.1' });
} else {
  const config = loadConfig(process.env);
  const ctx = await openContext(config, createLogger(config.logLevel));
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);
  // The kept dataset's caller (its token's user), who may open the customer.
  const caller = (await services.accounts.authenticate(process.env.FLOOR_TOKEN)).id;
  const primaryKeyRead = preparedQuery('floorPrimaryKeyRead', ({ db }, id: string) =>
    db.selectFrom('customers').select('id').where('id', '=', id),
  );
  const reads: Record<string, (id: string) => Promise<unknown>> = {
    pk: (id) => ctx.database.reader.first(primaryKeyRead, id),
    detail: (id) => customersRepository.detail(ctx.database.reader, id),
  };
  // Outside /api/: no token asked (auth mode none), so what is left is the app's own pipeline.
  app.get('/floor/constant', { schema: { response: small } }, async () => ({ status: 'ok' }));
  // Under /api/: the cached token and account check of every business call.
  app.get('/api/floor/authenticated', { schema: { response: small } }, async () => ({ status: 'ok' }));
  // The customer detail's answer, read once, then only serialised through its response schema.
  let answer: unknown;
  app.get('/floor/serialised/:id', { schema: { response: { 200: Envelope(Customer) } } }, async (request) => {
    answer ??= await services.customers.detail((request.params as { id: string }).id, caller);
    return ok(answer);
  });
  // `k` reads of one kind per request: the slope over k is what one read costs inside the server.
  app.get('/floor/read/:kind/:k/:id', { schema: { response: small } }, async (request) => {
    const { kind, k, id } = request.params as { kind: string; k: string; id: string };
    const read = reads[kind];
    if (read === undefined) throw new Error(`no read ${kind}`);
    for (let i = 0; i < Number(k); i++) await read(id);
    return { status: 'ok' };
  });
  await app.listen({ port, host: '127.0.0.1' });
}
process.send?.('ready');
process.on('SIGTERM', () => process.exit(0));
