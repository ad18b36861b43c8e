// lanes: sqlite
/**
 * The page renderer under a decompression bomb: one project uploads, as fast as it is let, PDFs of
 * about 1 MB whose image streams inflate to about 1 GiB each. Another project's deck must still be
 * rendered within 10 s of its upload (projects take turns in the render queue), the server with its
 * renderer child must stay under 600 MB (FILE_RENDER_MEMORY_MB bounds the child), and every bomb must
 * end `failed` for needing more memory than the renderer may use, not stay processing.
 */
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bombPdf } from '../helpers/bomb-pdf.ts';
import { type AbuseProject, type AbuseServer, type AbuseUser, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

const BOMBS = 9;
const abuse = useAbuseServer();

interface FileData {
  id: string;
  status: 'processing' | 'ready' | 'failed';
  renderedPages: number;
  pageCount: number;
  failure: string | null;
}

/** A two-page deck: a title, text and a chart on each page. */
async function twoPageDeck(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= 2; n++) {
    const page = doc.addPage([960, 540]);
    page.drawRectangle({ x: 0, y: 460, width: 960, height: 80, color: rgb(0.1, 0.3, 0.6) });
    page.drawText(`Quarterly review, page ${n}`, { x: 40, y: 485, size: 32, font, color: rgb(1, 1, 1) });
    page.drawText('Pipeline, wins and the plan for next quarter.', { x: 40, y: 400, size: 20, font });
    for (let i = 0; i < 6; i++)
      page.drawRectangle({ x: 80 + i * 120, y: 60, width: 80, height: 40 + i * 45 * n, color: rgb(0.2, 0.6, 0.3) });
  }
  return doc.save();
}

async function upload(s: AbuseServer, user: AbuseUser, appId: string, name: string, bytes: Uint8Array): Promise<FileData> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
  const res = await fetch(`${s.base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: user.auth, body: form });
  const body = (await res.json()) as { status: number; data: FileData };
  if (body.status !== 1) throw new Error(`upload answered ${JSON.stringify(body)}`);
  return body.data;
}

async function readFile(s: AbuseServer, user: AbuseUser, appId: string, id: string): Promise<FileData> {
  const res = await fetch(`${s.base}/api/v1.7/app/${appId}/file/${id}`, { headers: user.auth });
  const body = (await res.json()) as { status: number; data: FileData };
  if (body.status !== 1) throw new Error(`reading a file answered ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/**
 * Polls the project's list (one request for all its files, within the attacker's rate limit) until
 * none of `ids` is processing; answers each file and when its end was first seen (performance.now()).
 */
async function allSettled(s: AbuseServer, user: AbuseUser, appId: string, ids: string[], timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  const ended = new Map<string, { file: FileData; at: number }>();
  while (ended.size < ids.length) {
    if (performance.now() > deadline) throw new Error(`${ids.length - ended.size} files still processing after ${timeoutMs} ms`);
    const res = await fetch(`${s.base}/api/v1.7/app/${appId}/files?count=100`, { headers: user.auth });
    const body = (await res.json()) as { status: number; data: FileData[] };
    if (body.status !== 1) throw new Error(`the list answered ${res.status} ${JSON.stringify(body)}`);
    for (const file of body.data) {
      if (ids.includes(file.id) && file.status !== 'processing' && !ended.has(file.id)) ended.set(file.id, { file, at: performance.now() });
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return ids.map((id) => ended.get(id) as { file: FileData; at: number });
}

/** Polls the file until it is no longer processing; answers it and when that was seen (performance.now()). */
async function settled(
  s: AbuseServer,
  user: AbuseUser,
  appId: string,
  id: string,
  timeoutMs: number,
): Promise<{ file: FileData; at: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const file = await readFile(s, user, appId, id);
    if (file.status !== 'processing') return { file, at: performance.now() };
    if (performance.now() > deadline) throw new Error(`file ${id} still processing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function pageBytes(
  s: AbuseServer,
  user: AbuseUser,
  appId: string,
  id: string,
  n: number,
): Promise<{ etag: string | null; bytes: Buffer }> {
  const res = await fetch(`${s.base}/api/v1.7/app/${appId}/file/${id}/page/${n}`, { headers: user.auth });
  return { etag: res.headers.get('etag'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('decompression bombs from one project', () => {
  let attacker: AbuseUser;
  let victim: AbuseUser;
  let bystander: AbuseUser;
  let c: AbuseProject;
  let a: AbuseProject;
  let b: AbuseProject;
  let deck: Uint8Array;
  let bystanderFile: FileData;

  beforeAll(async () => {
    [attacker, victim, bystander] = [await signUp(abuse.server), await signUp(abuse.server), await signUp(abuse.server)];
    c = await createProject(abuse.server, bystander, 'Elsewhere');
    a = await createProject(abuse.server, attacker, 'Bombs');
    b = await createProject(abuse.server, victim, 'Decks');
    deck = await twoPageDeck();
    // A deck of the other project rendered before the attack: it must come out of it unchanged.
    const first = await upload(abuse.server, victim, b.appId, 'before.pdf', deck);
    bystanderFile = (await settled(abuse.server, victim, b.appId, first.id, 60_000)).file;
  });

  it("another project's deck is ready within 10 s, the server stays under 600 MB, and every bomb fails for its memory", async () => {
    expect(bystanderFile).toMatchObject({ status: 'ready', renderedPages: 2 });
    const before = await pageBytes(abuse.server, victim, b.appId, bystanderFile.id, 1);
    const bombs = Array.from({ length: BOMBS }, (_, i) => bombPdf(`bomb ${i}`));
    expect(Math.max(...bombs.map((x) => x.length))).toBeLessThan(1.2 * 1024 * 1024);

    const attack = await underAttack(
      abuse.server,
      async () => {
        const started = performance.now();
        // As fast as it is let: every bomb at once.
        const uploaded = await Promise.all(bombs.map((bytes, i) => upload(abuse.server, attacker, a.appId, `bomb-${i}.pdf`, bytes)));
        // The other project's deck, uploaded behind the whole backlog.
        const deckStarted = performance.now();
        const theirs = await upload(abuse.server, victim, b.appId, 'deck.pdf', deck);
        const ready = await settled(abuse.server, victim, b.appId, theirs.id, 60_000);
        const ended = await allSettled(
          abuse.server,
          attacker,
          a.appId,
          uploaded.map((f) => f.id),
          120_000,
        );
        return {
          deck: ready.file,
          deckReadyMs: ready.at - deckStarted,
          bombs: ended.map((e) => e.file),
          bombsFailedMs: ended.map((e) => Math.round(e.at - started)),
        };
      },
      // Another user's request meanwhile (the victim's own polling spends the victim's rate limit).
      () => fetch(`${abuse.server.base}/api/v1.7/app/${c.appId}/files`, { headers: bystander.auth }),
    );

    const { result } = attack;
    console.log(
      JSON.stringify({
        deckReadyMs: Math.round(result.deckReadyMs),
        peakRssMb: Math.round(attack.peakRssMb),
        probeWorstMs: Math.round(attack.worstMs),
        probes: attack.probes,
        bombsFailedMs: result.bombsFailedMs,
        bombsFailedForMemory: result.bombs.filter((x) => x.failure?.startsWith('It needs more memory')).length,
      }),
    );
    expect(abuse.server.alive()).toBe(true);
    expect(result.deck).toMatchObject({ status: 'ready', renderedPages: 2, failure: null });
    expect(result.deckReadyMs).toBeLessThan(10_000);
    expect(attack.peakRssMb).toBeLessThan(600);
    expect(attack.worstMs).toBeLessThan(1000);
    for (const bomb of result.bombs) {
      expect(bomb).toMatchObject({ status: 'failed', renderedPages: 0 });
      // Bounded by its memory; on a machine so loaded that inflating to the budget takes 10 s, by its time.
      expect(bomb.failure).toMatch(/^It needs more memory than the renderer may use \(384 MB\)|^A page took longer than 10000 ms/);
    }
    // The other project's earlier deck: still ready, its pages the same.
    expect(await readFile(abuse.server, victim, b.appId, bystanderFile.id)).toEqual(bystanderFile);
    const after = await pageBytes(abuse.server, victim, b.appId, bystanderFile.id, 1);
    expect(after.etag).toBe(before.etag);
    expect(after.bytes.equals(before.bytes)).toBe(true);
  }, 180_000);
});
