import { describe, expect, it } from 'vitest';
import { lineToPieces, mentionText, noteToLines, safeHref } from './noteText.ts';

const known = new Set([1042]);

describe("a note's text", () => {
  it('keeps its lines', () => {
    expect(noteToLines('one\ntwo\r\n\nfour', [])).toEqual([
      [{ kind: 'text', text: 'one' }],
      [{ kind: 'text', text: 'two' }],
      [],
      [{ kind: 'text', text: 'four' }],
    ]);
  });

  it('finds mentions, known (kept by the server) or not', () => {
    expect(lineToPieces('Ask @[Li Lei](member:1042) and @[Bob](member:7).', known)).toEqual([
      { kind: 'text', text: 'Ask ' },
      { kind: 'mention', label: 'Li Lei', id: 1042, known: true },
      { kind: 'text', text: ' and ' },
      { kind: 'mention', label: 'Bob', id: 7, known: false },
      { kind: 'text', text: '.' },
    ]);
  });

  it('links Markdown links and addresses written out, without the punctuation after them', () => {
    expect(lineToPieces('See [the offer](https://example.com/o?a=1), or https://example.com/x.', known)).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'link', text: 'the offer', href: 'https://example.com/o?a=1' },
      { kind: 'text', text: ', or ' },
      { kind: 'link', text: 'https://example.com/x', href: 'https://example.com/x' },
      { kind: 'text', text: '.' },
    ]);
    expect(lineToPieces('（见https://example.com/中文）', known)[1]).toEqual({
      kind: 'link',
      text: 'https://example.com/中文',
      href: 'https://example.com/%E4%B8%AD%E6%96%87',
    });
    expect(lineToPieces('mail mailto:a@example.com', known)[1]).toMatchObject({ kind: 'link', href: 'mailto:a@example.com' });
  });

  it('never links a script or data address, and never makes HTML: tags stay text', () => {
    expect(lineToPieces('[click](javascript:alert(1))', known)).toEqual([{ kind: 'text', text: '[click](javascript:alert(1))' }]);
    expect(lineToPieces('[x](data:text/html,<b>hi</b>)', known).every((p) => p.kind === 'text')).toBe(true);
    expect(lineToPieces('<img src=x onerror=alert(1)> **bold**', known)).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> **bold**' },
    ]);
    expect(safeHref('javascript:alert(1)')).toBeUndefined();
    expect(safeHref('HTTPS://Example.com')).toBe('https://example.com/');
  });

  it('leaves an address inside a word and a lone scheme as text', () => {
    expect(lineToPieces('xhttps://example.com', known)).toEqual([{ kind: 'text', text: 'xhttps://example.com' }]);
    expect(lineToPieces('https://', known)).toEqual([{ kind: 'text', text: 'https://' }]);
  });
});

describe('the mention picker', () => {
  it("writes the server's mention form, the name without brackets or line breaks, 100 characters at most", () => {
    expect(mentionText('Li Lei', 1042)).toBe('@[Li Lei](member:1042)');
    expect(mentionText('[Ops]\nTeam', 5)).toBe('@[Ops  Team](member:5)');
    expect(mentionText('  ', 9)).toBe('@[#9](member:9)');
    expect(mentionText('名'.repeat(120), 3)).toBe(`@[${'名'.repeat(100)}](member:3)`);
    // What it writes is what the note's text reads back as a mention.
    expect(lineToPieces(mentionText('Li Lei', 1042), known)).toEqual([{ kind: 'mention', label: 'Li Lei', id: 1042, known: true }]);
  });
});
