import { describe, expect, it } from 'vitest';
import { type KeyPress, isShortcut } from './useKeyShortcut.ts';

const press = (over: Partial<KeyPress> = {}): KeyPress => ({
  key: '/',
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  isComposing: false,
  defaultPrevented: false,
  target: null,
  ...over,
});

// Presses in a field or a dialog are left alone too: the browser tests check those (test/console/console.e2e.test.ts).
describe('a page shortcut', () => {
  it('is its key alone', () => {
    expect(isShortcut(press(), '/')).toBe(true);
    expect(isShortcut(press({ key: '?' }), '/')).toBe(false);
  });

  it('is not the key with Ctrl, Cmd or Alt (the browser and the system have those), nor while composing text', () => {
    expect(isShortcut(press({ ctrlKey: true }), '/')).toBe(false);
    expect(isShortcut(press({ metaKey: true }), '/')).toBe(false);
    expect(isShortcut(press({ altKey: true }), '/')).toBe(false);
    expect(isShortcut(press({ isComposing: true }), '/')).toBe(false);
  });

  it('is not a press something else already handled', () => {
    expect(isShortcut(press({ defaultPrevented: true }), '/')).toBe(false);
  });
});
