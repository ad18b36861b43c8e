/** The pages a pager offers (PageNumbers.tsx) around the current one: the first, the last, `buffer` each side of it, and jumps (`'back'`, `'forward'`) over the rest. */
export function pageWindow(current: number, pages: number, buffer: number): (number | 'back' | 'forward')[] {
  if (pages <= 5 + 2 * buffer) return Array.from({ length: pages }, (_, i) => i + 1);
  let left = Math.max(1, current - buffer);
  let right = Math.min(pages, current + buffer);
  if (current - 1 <= buffer) right = 1 + 2 * buffer;
  if (pages - current <= buffer) left = pages - 2 * buffer;
  const shown: (number | 'back' | 'forward')[] = [];
  for (let p = left; p <= right; p++) shown.push(p);
  if (left > 1) shown.unshift(...(left > 2 ? [1, 'back' as const] : [1]));
  if (right < pages) shown.push(...(right < pages - 1 ? ['forward' as const, pages] : [pages]));
  return shown;
}
