import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/http/errors.ts';
import { type PageRenderer, RenderError, type RenderedImage } from '../../../src/lib/page-renderer.ts';
import { MAX_STAMPED_DOWNLOADS, MAX_STAMPS_WAITING, boundedStamps } from '../../../src/modules/files/stamps.service.ts';

/** A renderer whose stamps wait until the test settles them. */
function heldRenderer() {
  const held: { resolve(image: RenderedImage): void; reject(err: unknown): void; owner: string }[] = [];
  const renderer: Pick<PageRenderer, 'stamp'> = {
    stamp: (_image, _mark, urgent) => new Promise((resolve, reject) => held.push({ resolve, reject, owner: urgent.owner })),
  };
  return { renderer, held };
}

const image = Buffer.from('page');
const mark = { text: 'visitor abc · 2026-11-01T09:05Z · 203.0.113.7', format: 'webp' as const, quality: 60 };
const drawn: RenderedImage = { width: 1, height: 1, bytes: new Uint8Array([1]) };

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
};

describe('watermarks drawn by the page renderer, bounded', () => {
  it(`lets ${MAX_STAMPS_WAITING} wait at once, answers overloaded past that, and takes more once they are drawn`, async () => {
    const { renderer, held } = heldRenderer();
    const stamps = boundedStamps(renderer);
    const waiting = Array.from({ length: MAX_STAMPS_WAITING }, (_, i) => stamps.stamp(`app-${i % 3}`, image, mark));
    expect(held).toHaveLength(MAX_STAMPS_WAITING);
    // Each is the project's urgent operation: projects take turns at the renderer.
    expect(held.map((h) => h.owner).slice(0, 3)).toEqual(['app-0', 'app-1', 'app-2']);
    const refused = stamps.stamp('app-0', image, mark);
    await expect(refused).rejects.toMatchObject({ code: 'overloaded', retryAfter: 2 });
    expect(held).toHaveLength(MAX_STAMPS_WAITING);
    for (const h of held.splice(0)) h.resolve(drawn);
    expect(await Promise.all(waiting)).toHaveLength(MAX_STAMPS_WAITING);
    const again = stamps.stamp('app-0', image, mark);
    held.shift()?.resolve(drawn);
    expect(await again).toBe(drawn);
  });

  it("tells the renderer's failures apart: an image it cannot read is not found, anything else a try again", async () => {
    const { renderer, held } = heldRenderer();
    const stamps = boundedStamps(renderer);
    const unreadable = stamps.stamp('app', image, mark);
    held.shift()?.reject(new RenderError('invalid', 'not a page image'));
    expect(await code(unreadable)).toBe('page_not_found');
    for (const kind of ['timeout', 'memory', 'crashed', 'closed'] as const) {
      const failed = stamps.stamp('app', image, mark);
      held.shift()?.reject(new RenderError(kind, kind));
      expect(await code(failed)).toBe('overloaded');
    }
    // A failure frees its place like a success.
    const all = Array.from({ length: MAX_STAMPS_WAITING }, () => stamps.stamp('app', image, mark));
    expect(held).toHaveLength(MAX_STAMPS_WAITING);
    for (const h of held.splice(0)) h.resolve(drawn);
    await Promise.all(all);
  });

  it(`writes ${MAX_STAMPED_DOWNLOADS} downloads at once; a place comes back once, when its download ends`, () => {
    const stamps = boundedStamps(heldRenderer().renderer);
    const releases = Array.from({ length: MAX_STAMPED_DOWNLOADS }, () => stamps.download());
    expect(() => stamps.download()).toThrow(expect.objectContaining({ code: 'overloaded' }));
    const first = releases[0] as () => void;
    first();
    first();
    const next = stamps.download();
    expect(() => stamps.download()).toThrow(expect.objectContaining({ code: 'overloaded' }));
    next();
  });
});
