import type { Locator } from 'playwright-core';

// The root tsconfig (which checks the tests importing this) has no DOM types: the page's objects are described here.
interface Box {
  top: number;
  left: number;
  bottom: number;
  right: number;
  height: number;
}
interface Node {
  tagName: string;
  parentElement: Node | null;
  getBoundingClientRect(): Box;
}
interface Window {
  innerWidth: number;
  innerHeight: number;
  getComputedStyle(node: Node): { overflowX: string; overflowY: string };
  document: { activeElement: unknown };
}

/**
 * Whether the element is wholly in sight, as a person sees it: inside the window and inside each box
 * that scrolls it (a drawer's body, a table's scroller), to the pixel.
 */
export function inSight(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const w = globalThis as unknown as Window;
    const node = element as unknown as Node;
    const r = node.getBoundingClientRect();
    const boxes: Omit<Box, 'height'>[] = [{ top: 0, left: 0, bottom: w.innerHeight, right: w.innerWidth }];
    for (let p = node.parentElement; p && p.tagName !== 'BODY'; p = p.parentElement) {
      const style = w.getComputedStyle(p);
      if (/auto|scroll/.test(`${style.overflowX} ${style.overflowY}`)) boxes.push(p.getBoundingClientRect());
    }
    return (
      r.height > 0 && boxes.every((b) => r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1)
    );
  });
}

/** Whether the element has the keyboard's focus. */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === (globalThis as unknown as Window).document.activeElement);
}

/** Whether the element's text is cut short with an ellipsis: wider than its box, drawn with `text-overflow: ellipsis`. */
export function isCut(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const e = element as unknown as { scrollWidth: number; clientWidth: number };
    const style = (globalThis as unknown as { getComputedStyle(e: unknown): { textOverflow: string } }).getComputedStyle(element);
    return e.scrollWidth > e.clientWidth && style.textOverflow === 'ellipsis';
  });
}

/** Those of the elements that reach past the window's left or right edge (a phone does not scroll sideways to them), by their text. */
export function outOfWidth(locator: Locator): Promise<string[]> {
  return locator.evaluateAll((elements) => {
    const w = globalThis as unknown as Window;
    return elements
      .map((element) => element as unknown as Node & { textContent: string | null; getAttribute(name: string): string | null })
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.left < 0 || r.right > w.innerWidth;
      })
      .map((e) => e.getAttribute('aria-label') ?? e.textContent ?? '');
  });
}
