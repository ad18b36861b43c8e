import { expect } from 'vitest';
import type { TestServer } from './harness.ts';
import { Browser, type LinkData, madeLink } from './links.ts';

export interface RoomData {
  id: string;
  appId: string;
  name: string;
  creatorId: string;
  items: unknown[];
}

/** Makes a data room (the test fails when the create does). */
export async function madeRoom(server: TestServer, appId: string, token: string, body: Record<string, unknown>): Promise<RoomData> {
  const res = await server.api.post(`/api/v1.7/app/${appId}/rooms`, body, { token });
  expect(res.json(), res.body).toMatchObject({ status: 1 });
  return res.json().data as RoomData;
}

/** A room named "Due diligence" holding one file, and a link of type 4 to it with `link`'s fields. */
export async function madeRoomLink(
  server: TestServer,
  appId: string,
  token: string,
  fileId: string,
  link: Record<string, unknown>,
): Promise<LinkData> {
  const room = await madeRoom(server, appId, token, { name: 'Due diligence', items: [{ type: 'file', file_id: fileId }] });
  return madeLink(server, appId, token, { type: 4, room_id: room.id, ...link });
}

/** The viewer's config of a page (the view token, the document). */
export function viewerConfig(html: string): Record<string, unknown> {
  const m = /<script type="application\/json" id="rapport-viewer">(.*?)<\/script>/s.exec(html);
  return m ? (JSON.parse(m[1] as string) as Record<string, unknown>) : {};
}

/**
 * A reader of a room link on a phone, through the viewer's beacons as its pages send them: the
 * room's page, then each document's page (a page load of its own, whose `open` continues the view),
 * a heartbeat every 10 s of the server's clock, which `tick` moves on by the milliseconds given.
 */
export class RoomReader {
  readonly b: Browser;
  private seq = 0;
  private token = '';
  private doc: string | null = null;
  private dwell: Record<string, number> = {};
  constructor(
    server: TestServer,
    private readonly share: string,
    private readonly tick: (ms: number) => void,
  ) {
    this.b = new Browser(server);
  }

  /** Loads a page of the room (null: the room's own) and sends its open beacon, as the script does. */
  async load(doc: string | null): Promise<Record<string, unknown>> {
    const res = await this.b.get(doc === null ? `/l/${this.share}` : `/l/${this.share}/doc/${doc}`);
    expect(res.statusCode, res.body).toBe(200);
    const config = viewerConfig(res.body);
    expect(config.doc ?? null).toBe(doc);
    this.token = config.token as string;
    this.doc = doc;
    this.seq = 0;
    this.dwell = {};
    const open = await this.send({ type: 'open', page: 1 });
    const data = open.data as { token: string; seq: number; dwell?: Record<string, number> };
    this.token = data.token;
    this.seq = Math.max(this.seq, data.seq);
    for (const [k, ms] of Object.entries(data.dwell ?? {})) this.dwell[k] = (this.dwell[k] ?? 0) + ms;
    return data;
  }

  async send(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.seq += 1;
    const res = await this.b.beacon(this.share, {
      ...body,
      seq: this.seq,
      token: this.token,
      ...(this.doc === null ? {} : { doc: this.doc }),
      ...(body.type === 'open' ? { dwell: {} } : { dwell: this.dwell }),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  }

  /** Reads `page` of the document loaded for `seconds`: a page beacon, then a heartbeat every 10 s. */
  async read(page: number, seconds: number): Promise<void> {
    await this.send({ type: 'page', page });
    for (let s = 10; s <= seconds; s += 10) {
      this.tick(10_000);
      this.dwell[String(page)] = (this.dwell[String(page)] ?? 0) + 10_000;
      await this.send({ type: 'hb', page });
    }
  }

  /** The page is left (the leave beacon of `pagehide`). */
  leave(page = 1): Promise<Record<string, unknown>> {
    return this.send({ type: 'leave', page });
  }
}
