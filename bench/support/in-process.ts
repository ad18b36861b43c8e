import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { openContext } from '../../src/runtime.ts';
import { type Services, createServices } from '../../src/services.ts';
import { cleanUpOnInterrupt, freshDatabase } from '../instance.ts';

/** The app built in-process on a fresh database, and its owner signed in with a project. */
export interface InProcessBench {
  ctx: AppContext;
  services: Services;
  app: FastifyInstance;
  /** The owner's token header, their user id, their project and its secret. */
  auth: { authorization: string };
  userId: number;
  appId: string;
  secret: string;
}

/**
 * Runs `body` on the app built in-process (as the tests build it) over a fresh database of `db`
 * (`label` names its temporary directory), with a signed-in owner and their project "Bench";
 * closes the app, the jobs and the database and drops it afterwards, or on an interrupt.
 */
export async function withInProcessApp<T>(db: string, label: string, body: (b: InProcessBench) => Promise<T>): Promise<T> {
  const database = await freshDatabase(db, label, { dataDir: true });
  const release = cleanUpOnInterrupt(database.drop);
  const env: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: 'warn',
    RAPPORT_EMBEDDED_RELAY: 'false',
    DATABASE_URL: undefined,
    ...database.env,
  };
  const ctx = await openContext(loadConfig(env), createLogger('warn', process.stderr));
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);
  try {
    const client = await services.clients.create('bench');
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const person = 'username=13900000000&password=bench%20pw';
    await app.inject({
      method: 'POST',
      url: '/svcuser/oauth2/register',
      headers: form,
      payload: 'phoneNum=13900000000&password=bench%20pw',
    });
    const login = await app.inject({
      method: 'POST',
      url: '/svcuser/oauth2/access_token',
      headers: form,
      payload: `grant_type=password&${person}`,
    });
    const auth = { authorization: `Bearer ${(login.json() as { access_token: string }).access_token}` };
    const info = await app.inject({ method: 'GET', url: '/svcuser/oauth2/getUserInfoByAccessToken', headers: auth });
    const userId = (info.json() as { id: number }).id;
    const made = await app.inject({ method: 'POST', url: '/api/v1.7/apps', headers: auth, payload: { name: 'Bench' } });
    const appId = (made.json() as { data: { appId: string } }).data.appId;
    const mine = await app.inject({ method: 'GET', url: '/api/v1.7/my-apps', headers: auth });
    const secret = (mine.json() as { data: { id: string; secret: string }[] }).data.find((a) => a.id === appId)?.secret as string;
    return await body({ ctx, services, app, auth, userId, appId, secret });
  } finally {
    await app.close();
    await services.jobs.stop();
    await ctx.database.close();
    release();
    await database.drop();
  }
}
