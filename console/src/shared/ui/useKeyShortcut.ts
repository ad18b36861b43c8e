import { useEffect, useLayoutEffect, useRef } from 'react';

/** What a shortcut needs to know of a key press (a KeyboardEvent has it all). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  isComposing: boolean;
  defaultPrevented: boolean;
  target: EventTarget | null;
}

/** Where a key press is text being typed, or belongs to a dialog over the page: a text box, a list box, an editable element. */
function typingOrInDialog(target: EventTarget | null): boolean {
  if (typeof Element === 'undefined' || !(target instanceof Element)) return false;
  if (target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="combobox"], [role="textbox"]'))
    return true;
  return target.closest('[role="dialog"], [aria-modal="true"]') !== null;
}

/**
 * Whether a press of `key` is the page's shortcut: the key alone (Shift allowed, as some layouts need
 * it for "/"), not while typing in a field or composing text, nor inside a dialog.
 */
export function isShortcut(press: KeyPress, key: string): boolean {
  if (press.key !== key || press.ctrlKey || press.metaKey || press.altKey) return false;
  if (press.isComposing || press.defaultPrevented) return false;
  return !typingOrInDialog(press.target);
}

/** Calls `action` when `key` is pressed on the page outside a field (see isShortcut); the key is then not typed anywhere. */
export function useKeyShortcut(key: string, action: () => void): void {
  const latest = useRef(action);
  useLayoutEffect(() => {
    latest.current = action;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e, key)) return;
      e.preventDefault();
      latest.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [key]);
}
