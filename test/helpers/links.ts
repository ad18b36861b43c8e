import { withoutAppIdCheck } from '../../src/db/app-id-check.ts';
import type { LightMyRequestResponse as Response } from 'fastify';
import { expect } from 'vitest';
import { fixture, settled, upload } from './files.ts';
import type { TestServer } from './harness.ts';
import type { HistoryProject } from './histories.ts';

/** A phone's browser (a User-Agent isbot does not take for a bot). */
export const MOBILE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

export interface LinkData {
  id: string;
  appId: string;
  name: string | null;
  title: string | null;
  shareToken: string;
  type: number;
  file1: string | null;
  website: string | null;
  creatorId: string | null;
  isDirectional: number;
  customerId: string | null;
  status: number;
  linkViewLogCount: number;
  viewerCount: number;
  clueCount: number;
  newViewCount: number;
  url?: string;
  customer?: { id: string; name: string | null } | null;
  [key: string]: unknown;
}

/** Uploads test/fixtures/files/<name> (default the 3-page deck) and waits until it is rendered. */
export async function renderedFile(server: TestServer, p: HistoryProject, token: string, name = 'deck.pdf'): Promise<string> {
  const res = await upload(server, p.appId, token, { filename: name, bytes: fixture(name), contentType: 'application/pdf' });
  const id = (res.json() as { data: { id: string } }).data.id;
  const file = await settled(server, p.appId, token, id);
  expect(file.status).toBe('ready');
  return id;
}

export async function createLink(server: TestServer, appId: string, token: string, body: Record<string, unknown>, withUrl = false) {
  return server.api.post(`/api/v1.7/app/${appId}/links`, body, { token, ...(withUrl ? { query: { with_url: 1 } } : {}) });
}

/** Creates a link and returns it (the test fails when the create does). */
export async function madeLink(server: TestServer, appId: string, token: string, body: Record<string, unknown>): Promise<LinkData> {
  const res = await createLink(server, appId, token, body);
  const json = res.json() as { status: number; data: LinkData };
  expect(json, res.body).toMatchObject({ status: 1 });
  return json.data;
}

/** A browser of the viewer: its cookies (the visitor cookie, unlock cookies) kept between requests. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly server: TestServer,
    readonly userAgent = MOBILE_UA,
    readonly ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.userAgent, ...extra };
    if (this.cookies.size > 0) h.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return h;
  }

  private keep(res: Response): Response {
    const set = res.headers['set-cookie'];
    for (const c of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = c.split(';');
      const eq = (pair ?? '').indexOf('=');
      if (eq > 0) this.cookies.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
    }
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.keep(await this.server.app.inject({ method: 'GET', url, headers: this.headers(headers), remoteAddress: this.ip }));
  }

  async post(url: string, payload: string, contentType: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.keep(
      await this.server.app.inject({
        method: 'POST',
        url,
        payload,
        headers: this.headers({ 'content-type': contentType, ...headers }),
        remoteAddress: this.ip,
      }),
    );
  }

  /** Opens the viewer page and returns its view token (null: nothing will be recorded). */
  async open(shareToken: string): Promise<{ res: Response; viewToken: string | null; config: Record<string, unknown> }> {
    const res = await this.get(`/l/${shareToken}`);
    const m = /<script type="application\/json" id="rapport-viewer">(.*?)<\/script>/s.exec(res.body);
    const config = m ? (JSON.parse(m[1] as string) as Record<string, unknown>) : {};
    return { res, viewToken: (config.token as string | null | undefined) ?? null, config };
  }

  beacon(shareToken: string, body: unknown, contentType = 'text/plain;charset=UTF-8', headers: Record<string, string> = {}) {
    return this.post(`/l/${shareToken}/events`, typeof body === 'string' ? body : JSON.stringify(body), contentType, headers);
  }
}

/**
 * A reader on a phone, through the viewer's beacons: opens a link, reads pages (a heartbeat every 10 s
 * of the server's clock, which `tick` moves on by the milliseconds given), leaves. `browser`: a
 * browser of the reader's own (its cookies and address kept: the same device again), else a new one.
 */
export class BeaconReader {
  readonly b: Browser;
  private seq = 0;
  private token = '';
  private readonly dwell: Record<string, number> = {};
  constructor(
    server: TestServer,
    private readonly share: string,
    private readonly tick: (ms: number) => void,
    browser?: Browser,
  ) {
    this.b = browser ?? new Browser(server);
  }

  /** The view token of the page last opened (a form filled during the view names it). */
  get viewToken(): string {
    return this.token;
  }

  async open(): Promise<void> {
    this.token = (await this.b.open(this.share)).viewToken as string;
    expect(this.token).toBeTruthy();
    await this.send({ type: 'open', page: 1 });
  }

  private async send(body: Record<string, unknown>): Promise<void> {
    this.seq += 1;
    const res = await this.b.beacon(this.share, {
      ...body,
      seq: this.seq,
      token: this.token,
      ...(body.type === 'open' ? {} : { dwell: this.dwell }),
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** Reads `page` for `seconds`: a page beacon, then a heartbeat every 10 s of the server's clock. */
  async read(page: number, seconds: number): Promise<void> {
    await this.send({ type: 'page', page });
    for (let s = 10; s <= seconds; s += 10) {
      this.tick(10_000);
      this.dwell[String(page)] = (this.dwell[String(page)] ?? 0) + 10_000;
      await this.send({ type: 'hb', page });
    }
  }

  leave(page: number): Promise<void> {
    return this.send({ type: 'leave', page });
  }
}

/** Rows of a table, for "nothing was written" checks. */
export async function count(
  server: TestServer,
  table: 'link_view_logs' | 'link_view_durations' | 'behaviour_logs' | 'clues' | 'customers' | 'outbox',
) {
  // Every project's rows of the file's own database: read past the app_id check, as storage.
  const row = await withoutAppIdCheck(() =>
    server.ctx.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  );
  return Number(row.n);
}
