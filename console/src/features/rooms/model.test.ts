import { describe, expect, it } from 'vitest';
import {
  MAX_DEPTH,
  addFiles,
  addFolder,
  countItems,
  fromStored,
  mayAddFolder,
  move,
  problems,
  remove,
  rename,
  rowsOf,
  toBody,
} from './model.ts';

const deck = { id: 'f-deck', name: 'Deck.pdf', pageCount: 12 };
const photo = { id: 'f-photo', name: 'Photo.png', pageCount: 1 };

describe('the room editor model', () => {
  it('reads a stored tree and gives it back as the API takes it', () => {
    const draft = fromStored([
      { type: 'folder', name: 'Contracts', items: [{ type: 'file', fileId: 'f1', name: 'MSA.pdf', pageCount: 3 }] },
      { type: 'file', fileId: 'f2', name: 'Deck.pdf', pageCount: 9 },
    ]);
    expect(toBody(draft)).toEqual([
      { type: 'folder', name: 'Contracts', items: [{ type: 'file', file_id: 'f1' }] },
      { type: 'file', file_id: 'f2' },
    ]);
    expect(rowsOf(draft).map((r) => [r.item.name, r.depth, r.first, r.last])).toEqual([
      ['Contracts', 1, true, false],
      ['MSA.pdf', 2, true, true],
      ['Deck.pdf', 1, false, true],
    ]);
  });

  it('adds folders up to four deep, and files once per room where they go', () => {
    let draft = addFolder([], null, 'A');
    for (let depth = 1; depth < MAX_DEPTH; depth += 1) {
      const deepest = rowsOf(draft).at(-1)?.item.key as string;
      draft = addFolder(draft, deepest, `L${depth + 1}`);
    }
    const deepest = rowsOf(draft).at(-1)?.item.key as string;
    expect(mayAddFolder(draft, deepest)).toBe(false);
    expect(addFolder(draft, deepest, 'Too deep')).toBe(draft);
    draft = addFiles(draft, deepest, [deck, photo]);
    draft = addFiles(draft, null, [deck]);
    expect(rowsOf(draft).map((r) => `${r.depth}:${r.item.name}`)).toEqual(['1:A', '2:L2', '3:L3', '4:L4', '5:Deck.pdf', '5:Photo.png']);
    expect(countItems(draft)).toBe(6);
  });

  it('renames, moves within the siblings and removes a folder with what it holds', () => {
    let draft = addFiles(addFolder(addFolder([], null, 'One'), null, 'Two'), null, [deck]);
    const [one, two] = draft.map((i) => i.key) as [string, string];
    draft = addFiles(draft, one, [photo]);
    draft = move(rename(draft, two, 'Second'), two, -1);
    expect(draft.map((i) => i.name)).toEqual(['Second', 'One', 'Deck.pdf']);
    expect(move(draft, two, -1)).toEqual(draft);
    draft = remove(draft, one);
    expect(rowsOf(draft).map((r) => r.item.name)).toEqual(['Second', 'Deck.pdf']);
  });

  it('names what keeps a room from being saved', () => {
    expect(problems(' ', addFolder([], null, ' '))).toEqual(['name', 'folderName']);
    expect(problems('Deal', addFolder([], null, 'Contracts'))).toEqual([]);
  });
});
