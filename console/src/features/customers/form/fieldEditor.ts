/**
 * The field editor's pure parts: options as lines of text, and which settings a field offers
 * (docs/metadata.md "Editable fields"). Tested alone.
 */
import type { FieldOption } from './registry.ts';

/** The types a project's own fields may have. */
export const CUSTOM_TYPES = ['text', 'number', 'date', 'option', 'multiOption'] as const;

/** Options as the editor's text: one a line, `value` or `value | label`. */
export function optionLines(options: readonly FieldOption[] | undefined): string {
  return (options ?? []).map((o) => (o.label === o.value ? o.value : `${o.value} | ${o.label}`)).join('\n');
}

/** The editor's text as options, in order; blank lines skipped. */
export function parseOptionLines(text: string): FieldOption[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const bar = line.indexOf('|');
      const value = (bar < 0 ? line : line.slice(0, bar)).trim();
      const label = bar < 0 ? value : line.slice(bar + 1).trim() || value;
      return { value, label };
    });
}

/** What the editor lets one change of a field: built-in attributes keep their type and read-only flag. */
export function editableSettings(field: { isExt: boolean; type: string }): {
  options: boolean;
  unique: boolean;
  readonly: boolean;
  searchable: boolean;
} {
  const hasOptions = field.type === 'option' || field.type === 'multiOption';
  if (!field.isExt) {
    return {
      options: hasOptions,
      unique: ['text', 'phone', 'fixedPhone', 'email'].includes(field.type),
      readonly: false,
      searchable: false,
    };
  }
  return { options: hasOptions, unique: field.type !== 'multiOption', readonly: true, searchable: true };
}
