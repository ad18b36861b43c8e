import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../runtime.ts';
import { relayForever, serveForever } from '../server.ts';
import type { AppContext } from '../context.ts';
import { type Services, createServices } from '../services.ts';

const USAGE = `Usage: rapport <command>

Commands:
  serve                     run the HTTP server (migrates the database first)
  migrate                   bring the database schema up to date and exit
  relay                     run the event relay on its own (set RAPPORT_EMBEDDED_RELAY=false on the servers);
                            with METRICS_TOKEN and METRICS_PORT it serves /metrics on that port
  client create --name NAME create an OAuth client; prints {"client_id","client_secret"} (the secret is shown once)
  client create --id ID --secret SECRET [--name NAME]
                            register an existing client's credentials (e.g. baked into scripts); --secret -
                            reads the secret from the first line of standard input; prints {"client_id","name"}
  client list               list OAuth clients
  client revoke ID          revoke a client and every token issued through it
  user create --admin (--email ADDRESS | --phone NUMBER) [--name NAME]
                            create an activated account (a server administrator with --admin: the alternative to
                            the setup code a server without accounts logs at start); the password is the first
                            line of standard input; prints {"id","username","admin"}
  erase customer ID         erase a customer for good (right to be forgotten): the customer, the customers merged
                            into it and their history; prints what was removed, leaves an audit entry without
                            personal data
  openapi                   print the OpenAPI document
  backup FILE               write a consistent backup of the database and DATA_DIR's files to FILE (mode 0600)
                            while the server runs
  restore FILE              load a backup into an empty database and an empty DATA_DIR
  import customers FILE --app ID --owner ID [--dry-run] [--policy skip|update|merge] [--group ID] [--mapping JSON]
                            import a CSV or XLSX file of customers (as the import endpoint does), with a progress
                            bar on stderr; prints the job's summary
  export customers --app ID [--format csv|xlsx] [--out FILE] [--keyword TEXT] [--group ID]
                            write every live customer of a project (to stdout without --out)

Configuration comes from the environment: PORT, HOST, DATA_DIR, DATABASE_URL, PUBLIC_BASE_URL,
TIME_ZONE, LOG_LEVEL (see README.md).`;

class UsageError extends Error {}

/** The first line of standard input (a secret kept off the command line). */
async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0] ?? '';
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

async function withServices<T>(fn: (services: Services, ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // CLI commands log only warnings to stderr, so stdout stays machine-readable.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const ctx = await openContext(config, logger);
  try {
    return await fn(createServices(ctx), ctx);
  } finally {
    await ctx.database.close();
  }
}

/** `rapport migrate`: applies this build's migrations and prints their names. */
async function migrate(): Promise<number> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, process.stderr, { truncateIps: config.ipTruncate });
  const ctx = await openContext(config, logger, { migrate: false });
  try {
    const { migrateToLatest } = await import('../db/index.ts');
    const { applied } = await migrateToLatest(ctx.database.db, ctx.database.features.name);
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
  } finally {
    await ctx.database.close();
  }
  return 0;
}

/** `rapport user create [--admin]`: an activated account, the password from standard input's first line. */
async function userCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(`unknown user command: ${sub ?? '(none)'}`);
  const email = option(rest, '--email');
  const phoneNum = option(rest, '--phone');
  if ((email === undefined) === (phoneNum === undefined)) throw new UsageError('user create needs --email ADDRESS or --phone NUMBER');
  const admin = rest.includes('--admin');
  const password = (await readStdinLine()).replace(/\r$/, '');
  try {
    const user = await withServices((s) =>
      s.accounts.operatorCreateUser({ email, phoneNum, nickname: option(rest, '--name'), password }, { admin }),
    );
    process.stdout.write(`${JSON.stringify({ id: user.id, username: user.email ?? user.phone_num, admin: user.server_admin === 1 })}\n`);
    return 0;
  } catch (err) {
    // A refusal of the account (taken, a short password, a malformed address) is the operator's to fix.
    if (!(err instanceof Error) || err.name !== 'AppError') throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
}

/** `rapport client create|list|revoke`: the OAuth clients. */
async function clientCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create' && (rest.includes('--id') || rest.includes('--secret'))) {
    const id = option(rest, '--id');
    let secret = option(rest, '--secret');
    if (!id || !secret) throw new UsageError('client create --id ID needs --secret SECRET (and --secret needs --id)');
    if (secret === '-') secret = (await readStdinLine()).trim();
    const given = secret;
    const name = option(rest, '--name');
    try {
      const registered = await withServices((s) => s.clients.register(id, given, name));
      process.stdout.write(`${JSON.stringify(registered)}\n`);
    } catch (err) {
      if (!(err instanceof Error) || err.name !== 'Error') throw err;
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    return 0;
  }
  if (sub === 'create') {
    const name = option(rest, '--name');
    if (!name) throw new UsageError('client create needs --name NAME');
    const created = await withServices((s) => s.clients.create(name));
    process.stdout.write(`${JSON.stringify(created)}\n`);
    return 0;
  }
  if (sub === 'list') {
    const list = await withServices((s) => s.clients.list());
    for (const c of list) process.stdout.write(`${JSON.stringify(c)}\n`);
    return 0;
  }
  if (sub === 'revoke') {
    const id = rest[0];
    if (!id) throw new UsageError('client revoke needs a client id');
    const done = await withServices((s) => s.clients.revoke(id));
    if (!done) {
      process.stderr.write(`no client ${id}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify({ revoked: id })}\n`);
    return 0;
  }
  throw new UsageError(`unknown client command: ${sub ?? '(none)'}`);
}

/** `rapport erase customer ID`: erases a customer for good. */
async function erase(args: string[]): Promise<number> {
  const [what, id] = args;
  if (what !== 'customer' || !id) throw new UsageError('erase needs: erase customer ID');
  try {
    const result = await withServices((s) => s.erasure.eraseById(id));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'customer_not_found') {
      process.stderr.write(`no customer ${id}\n`);
      return 1;
    }
    throw err;
  }
}

/** `rapport backup FILE` and `rapport restore FILE`. */
async function backupOrRestore(command: 'backup' | 'restore', args: string[]): Promise<number> {
  const file = args[0];
  if (!file) throw new UsageError(`${command} needs a FILE`);
  const config = loadConfig();
  const { backup, restore } = await import('../backup.ts');
  const { BackupError } = await import('../db/index.ts');
  try {
    const result = command === 'backup' ? await backup(config, file) : await restore(config, file);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    process.stderr.write(`rapport ${command}: ${err.message}\n`);
    return 1;
  }
}

/** `rapport import customers FILE --app ID --owner ID`: an import job run here, its progress on stderr. */
async function importCustomers(args: string[]): Promise<number> {
  const [what, file, ...rest] = args;
  if (what !== 'customers' || !file) throw new UsageError('import customers FILE --app ID --owner ID [--dry-run]');
  const appId = option(rest, '--app');
  const owner = Number(option(rest, '--owner'));
  if (!appId || !Number.isInteger(owner) || owner < 1) throw new UsageError('import customers needs --app ID and --owner ID');
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: '{bar} {percentage}% | {value}/{total} rows | created {created} updated {updated} skipped {skipped} failed {failed}',
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const job = await withServices((s) =>
    s.dataops.cli.importLocal({
      appId,
      ownerId: owner,
      filePath: file,
      request: {
        dry_run: rest.includes('--dry-run'),
        duplicate_policy: option(rest, '--policy'),
        group_id: option(rest, '--group'),
        mapping: option(rest, '--mapping'),
        encoding: option(rest, '--encoding'),
      },
      onProgress: (j) => {
        const counts = { created: j.created, updated: j.updated, skipped: j.skipped, failed: j.failed };
        if (!started) {
          bar.start(j.total, j.processed, counts);
          started = true;
        }
        bar.setTotal(j.total);
        bar.update(j.processed, counts);
      },
    }),
  ).finally(() => {
    if (started) bar.stop();
  });
  const { id, status, total, processed, created, updated, skipped, failed, error } = job;
  process.stdout.write(`${JSON.stringify({ id, status, total, processed, created, updated, skipped, failed, error })}\n`);
  return status === 'done' ? 0 : 1;
}

/** `rapport export customers --app ID`: the project's customers as CSV or XLSX, to a file or stdout. */
async function exportCustomers(args: string[]): Promise<number> {
  const [what, ...rest] = args;
  const appId = option(rest, '--app');
  if (what !== 'customers' || !appId) throw new UsageError('export customers --app ID [--format csv|xlsx] [--out FILE]');
  const format = option(rest, '--format') ?? 'csv';
  if (format !== 'csv' && format !== 'xlsx') throw new UsageError('--format is csv or xlsx');
  const out = option(rest, '--out');
  const fs = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  await withServices(async (s) => {
    const body = await s.dataops.cli.exportCustomers(appId, {
      filter: { keyword: option(rest, '--keyword'), groupId: option(rest, '--group') },
      format,
    });
    await pipeline(body, out ? fs.createWriteStream(out, { mode: 0o600 }) : process.stdout);
  });
  return 0;
}

/** `rapport openapi`: the OpenAPI document of the HTTP interface. */
async function openapi(): Promise<number> {
  const { buildApp } = await import('../app.ts');
  const doc = await withServices(async (services, ctx) => {
    const app = await buildApp(ctx, services);
    await app.ready();
    const out = app.swagger();
    await app.close();
    return out;
  });
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      await serveForever(loadConfig());
      return -1; // keeps running
    case 'relay':
      await relayForever(loadConfig());
      return -1; // keeps running
    case 'migrate':
      return migrate();
    case 'client':
      return clientCommand(args);
    case 'user':
      return userCommand(args);
    case 'erase':
      return erase(args);
    case 'backup':
    case 'restore':
      return backupOrRestore(command, args);
    case 'import':
      return importCustomers(args);
    case 'export':
      return exportCustomers(args);
    case 'openapi':
      return openapi();
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`rapport: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`rapport: configuration error: ${err.message}\n`);
      process.exitCode = 78;
    } else {
      process.stderr.write(`rapport: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
    // A failed command ends here: nothing left open (a cluster worker's channel to its primary, a
    // pool) may keep it alive. stderr is synchronous on files, pipes and terminals.
    process.exit();
  },
);
