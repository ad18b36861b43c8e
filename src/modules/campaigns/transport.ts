import net from 'node:net';
import type { Transporter } from 'nodemailer';
import type { AppContext } from '../../context.ts';
import type { ProjectsService } from '../projects/service.ts';

type SocketOptions = { host?: string; port?: number | string; secure?: boolean };
type SocketCallback = (err: Error | null, socket: { connection: net.Socket } | false) => void;

/** The SMTP side, replaceable in tests: nodemailer's sendMail. */
export type MailTransport = Pick<Transporter, 'sendMail' | 'close'>;

/** How long a project's name (its mail's From display name) is kept before it is read again. */
const FROM_NAME_MS = 60_000;

/**
 * The campaigns' way out: nodemailer's pool on SMTP_URL (or the transport a test gives), the send
 * rate (MAIL_RATE_PER_SECOND, shared by campaigns and test mails), and a project's From.
 */
export function createCampaignTransport(ctx: AppContext, projects: Pick<ProjectsService, 'name'>, given?: MailTransport | null) {
  const { config, clock } = ctx;
  let transport: MailTransport | null | undefined = given;

  async function mailer(): Promise<MailTransport | null> {
    if (transport !== undefined) return transport;
    if (config.smtpUrl === undefined) return (transport = null);
    const nodemailer = (await import('nodemailer')).default;
    // nodemailer reads a URL's options from its query string only (an options object with `url`
    // drops every other field): the pool's settings go there, unless SMTP_URL sets them itself.
    const url = new URL(config.smtpUrl);
    const pool = { pool: 'true', maxConnections: String(config.mailConnections), maxMessages: 'Infinity' };
    for (const [k, v] of Object.entries(pool)) if (!url.searchParams.has(k)) url.searchParams.set(k, v);
    // DKIM as a default of every message (the transport's own options come from the URL).
    const pooled = nodemailer.createTransport(url.href, config.mailDkim ? { dkim: { ...config.mailDkim } } : undefined);
    // The pool's connections without Nagle's delay: a message's last segment waited for the server's
    // delayed ACK (about 40 ms a mail per connection). A connection that fails falls back to
    // nodemailer's own, which reports the failure as usual.
    const poolTransport = pooled.transporter as unknown as { getSocket: (o: SocketOptions, cb: SocketCallback) => void };
    poolTransport.getSocket = (o, cb) => {
      const socket = net.connect({ host: o.host ?? 'localhost', port: Number(o.port) || (o.secure ? 465 : 587), noDelay: true });
      const fallback = () => {
        socket.destroy();
        cb(null, false);
      };
      socket.once('error', fallback);
      socket.once('connect', () => {
        socket.off('error', fallback);
        cb(null, { connection: socket });
      });
    };
    transport = pooled;
    return transport;
  }

  // A token bucket: the next send may start at most MAIL_RATE_PER_SECOND a second.
  const gap = 1000 / config.mailRatePerSecond;
  let next = 0;
  function turn(): Promise<void> {
    const now = clock.now();
    const at = Math.max(now, next);
    next = at + gap;
    return at > now ? new Promise<void>((resolve) => clock.after(at - now, resolve)) : Promise.resolve();
  }

  const names = new Map<string, { name: string; at: number }>();
  async function fromName(appId: string): Promise<string> {
    const known = names.get(appId);
    if (known !== undefined && clock.now() - known.at < FROM_NAME_MS) return known.name;
    const name = (await projects.name(appId)) ?? 'Rapport';
    if (names.size > 1000) names.clear();
    names.set(appId, { name, at: clock.now() });
    return name;
  }

  return {
    mailer,
    /** Whether the server can send mail (SMTP_URL, or a transport given in tests). */
    configured: () => config.smtpUrl !== undefined || (given !== undefined && given !== null),
    /** Resolves when the next mail may be handed to SMTP. */
    turn,
    /** A project's mail `From`: its name, with SMTP_FROM's address. */
    async from(appId: string): Promise<{ name: string; address: string }> {
      return { name: await fromName(appId), address: /<([^>]+)>/.exec(config.smtpFrom)?.[1] ?? config.smtpFrom };
    },
    /** Closes the SMTP pool; the next mail opens a new one. */
    close(): void {
      transport?.close();
      transport = given === undefined ? undefined : given;
    },
  };
}

export type CampaignTransport = ReturnType<typeof createCampaignTransport>;
