import { withoutAppIdCheck } from '../../src/db/app-id-check.ts';
import type { LightMyRequestResponse as Response } from 'fastify';
import { expect, vi } from 'vitest';
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

/** The server's clock as a test moves it: after `use()` the server reads the test's time (vi.restoreAllMocks gives the real one back). */
export class TestClock {
  constructor(
    private readonly server: TestServer,
    public now: number = Date.now(),
  ) {}

  use(): void {
    vi.spyOn(this.server.ctx.clock, 'now').mockImplementation(() => this.now);
  }

  advance(ms: number): void {
    this.now += ms;
  }
}

/**
 * A reader in a phone's browser, driving the viewer's beacons as its script does, on a TestClock: it
 * opens the link, reads a page with a heartbeat every 10 s of the test's time (each one crediting
 * those 10 s), and leaves. A new Reader of the same Browser is the same visitor's next view.
 */
export class Reader {
  private seq = 0;
  private token = '';
  protected page = 1;
  private readonly dwell: Record<string, number> = {};
  constructor(
    private readonly server: TestServer,
    private readonly shareToken: string,
    private readonly clock: Pick<TestClock, 'advance'>,
    readonly browser: Browser = new Browser(server),
  ) {}

  private async send(body: Record<string, unknown>): Promise<void> {
    this.seq += 1;
    const res = await this.browser.beacon(this.shareToken, {
      ...body,
      seq: this.seq,
      token: this.token,
      page: this.page,
      ...(body.type === 'open' ? {} : { dwell: this.dwell }),
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** The view token of the page last opened (a form filled during the view names it). */
  get viewToken(): string {
    return this.token;
  }

  async open(page = 1): Promise<void> {
    this.token = (await this.browser.open(this.shareToken)).viewToken as string;
    expect(this.token, 'the viewer page carries a view token').toBeTruthy();
    this.page = page;
    await this.send({ type: 'open' });
  }

  /** Turns to `page` and reads it for `seconds` (a multiple of 10). */
  async read(page: number, seconds: number): Promise<void> {
    this.page = page;
    await this.send({ type: 'page' });
    for (let s = 10; s <= seconds; s += 10) {
      this.clock.advance(10_000);
      this.dwell[String(page)] = (this.dwell[String(page)] ?? 0) + 10_000;
      await this.send({ type: 'hb' });
    }
  }

  leave(): Promise<void> {
    return this.send({ type: 'leave' });
  }
}

/**
 * A Reader whose test moves the server's clock itself: `tick` moves it on by the milliseconds given
 * (a heartbeat every 10 s of it).
 */
export class BeaconReader extends Reader {
  /** `browser`: a browser of the reader's own (its cookies and address kept: the same device again), else a new one. */
  constructor(server: TestServer, share: string, tick: (ms: number) => void, browser?: Browser) {
    super(server, share, { advance: tick }, browser);
  }

  get b(): Browser {
    return this.browser;
  }

  /** Leaves from `page`. */
  override leave(page?: number): Promise<void> {
    if (page !== undefined) this.page = page;
    return super.leave();
  }
}
