import { describe, expect, it } from 'vitest';
import { editableSettings, optionLines, parseOptionLines } from './fieldEditor.ts';

describe('the field editor', () => {
  it('writes and reads options as lines, a label after a bar', () => {
    const options = [
      { value: 'gold', label: 'Gold' },
      { value: 'vip', label: 'vip' },
    ];
    expect(optionLines(options)).toBe('gold | Gold\nvip');
    expect(parseOptionLines('gold | Gold\n\n  vip  \nx |')).toEqual([...options, { value: 'x', label: 'x' }]);
  });
  it('offers a built-in attribute only what the server lets change', () => {
    expect(editableSettings({ isExt: false, type: 'option' })).toEqual({
      options: true,
      unique: false,
      readonly: false,
      searchable: false,
    });
    expect(editableSettings({ isExt: false, type: 'phone' })).toMatchObject({ unique: true });
    expect(editableSettings({ isExt: true, type: 'multiOption' })).toEqual({
      options: true,
      unique: false,
      readonly: true,
      searchable: true,
    });
  });
});
