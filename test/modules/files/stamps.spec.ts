import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/http/errors.ts';
import { type PageRenderer, RenderError, type RenderedImage } from '../../../src/lib/page-renderer.ts';
import {
  MAX_STAMPED_DOWNLOADS,
  MAX_STAMPED_DOWNLOADS_PER_PROJECT,
  MAX_STAMPS_PER_PROJECT,
  MAX_STAMPS_WAITING,
  boundedStamps,
} from '../../../src/modules/files/stamps.service.ts';

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
  it(`lets ${MAX_STAMPS_PER_PROJECT} of a project wait, ${MAX_STAMPS_WAITING} in all; past that overloaded, until some are drawn`, async () => {
    const { renderer, held } = heldRenderer();
    const stamps = boundedStamps(renderer);
    const flood = Array.from({ length: MAX_STAMPS_PER_PROJECT }, () => stamps.image('flood', image, mark));
    // The flooding project's next one is refused; another project's goes on.
    await expect(stamps.image('flood', image, mark)).rejects.toMatchObject({ code: 'overloaded', retryAfter: 2 });
    const others = Array.from({ length: MAX_STAMPS_WAITING - MAX_STAMPS_PER_PROJECT }, (_, i) => stamps.image(`app-${i % 8}`, image, mark));
    expect(held).toHaveLength(MAX_STAMPS_WAITING);
    // Each is its project's urgent operation: projects take turns at the renderer.
    expect(new Set(held.map((h) => h.owner)).size).toBe(9);
    // Full in all: a project with none waiting is refused too, and nothing more reaches the renderer.
    expect(await code(stamps.image('quiet', image, mark))).toBe('overloaded');
    expect(held).toHaveLength(MAX_STAMPS_WAITING);
    for (const h of held.splice(0)) h.resolve(drawn);
    expect(await Promise.all([...flood, ...others])).toHaveLength(MAX_STAMPS_WAITING);
    const again = stamps.image('flood', image, mark);
    held.shift()?.resolve(drawn);
    expect(await again).toBe(drawn);
  });

  it("tells the renderer's failures apart: an image it cannot read is not found, anything else a try again", async () => {
    const { renderer, held } = heldRenderer();
    const stamps = boundedStamps(renderer);
    const unreadable = stamps.image('app', image, mark);
    held.shift()?.reject(new RenderError('invalid', 'not a page image'));
    expect(await code(unreadable)).toBe('page_not_found');
    for (const kind of ['timeout', 'memory', 'crashed', 'closed'] as const) {
      const failed = stamps.image('app', image, mark);
      held.shift()?.reject(new RenderError(kind, kind));
      expect(await code(failed)).toBe('overloaded');
    }
    // A failure frees its place like a success.
    const all = Array.from({ length: MAX_STAMPS_PER_PROJECT }, () => stamps.image('app', image, mark));
    expect(held).toHaveLength(MAX_STAMPS_PER_PROJECT);
    for (const h of held.splice(0)) h.resolve(drawn);
    await Promise.all(all);
  });

  it(`writes ${MAX_STAMPED_DOWNLOADS_PER_PROJECT} downloads of a project, ${MAX_STAMPED_DOWNLOADS} in all; a place comes back once`, async () => {
    const { renderer, held } = heldRenderer();
    const stamps = boundedStamps(renderer);
    const mine = Array.from({ length: MAX_STAMPED_DOWNLOADS_PER_PROJECT }, () => stamps.download('a'));
    expect(() => stamps.download('a')).toThrow(expect.objectContaining({ code: 'overloaded' }));
    const theirs = Array.from({ length: MAX_STAMPED_DOWNLOADS - MAX_STAMPED_DOWNLOADS_PER_PROJECT }, (_, i) => stamps.download(`b${i}`));
    expect(() => stamps.download('c')).toThrow(expect.objectContaining({ code: 'overloaded' }));
    // A download's pages are drawn whatever the images' places: its own two at a time bound them.
    const flood = Array.from({ length: MAX_STAMPS_PER_PROJECT }, () => stamps.image('a', image, mark));
    const page = (mine[0] as ReturnType<typeof stamps.download>).draw(image, mark);
    expect(held).toHaveLength(MAX_STAMPS_PER_PROJECT + 1);
    for (const h of held.splice(0)) h.resolve(drawn);
    expect(await page).toBe(drawn);
    await Promise.all(flood);
    const first = mine[0] as ReturnType<typeof stamps.download>;
    first.release();
    first.release();
    const next = stamps.download('a');
    expect(() => stamps.download('a')).toThrow(expect.objectContaining({ code: 'overloaded' }));
    for (const d of [next, ...mine.slice(1), ...theirs]) d.release();
  });
});
