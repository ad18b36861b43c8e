import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { SEEDED_OPTION_LABELS, SEEDED_TITLES } from '../form/seeded.ts';

type Texts = { customers?: { fields?: Record<string, string> } };

/** A built-in attribute: one the console has a label of its own for (customers.fields.<name>). */
function builtIn(texts: Texts | undefined, name: string): boolean {
  return Object.hasOwn(texts?.customers?.fields ?? {}, name);
}

/**
 * A customer attribute's label: the console's own, in the user's language, for a built-in one whose
 * title is still the seeded one; the metadata's title otherwise (a custom field, or a title the
 * project's admins changed).
 */
export function useFieldLabel(): (name: string, title: string) => string {
  const { t, i18n } = useTranslation();
  return useCallback(
    (name: string, title: string) =>
      builtIn(i18n.getResourceBundle(i18n.language, 'translation') as Texts | undefined, name) && (!title || title === SEEDED_TITLES[name])
        ? t(`customers.fields.${name as 'name'}`)
        : title || name,
    [t, i18n],
  );
}

/**
 * An option's label: for a built-in attribute's option still labelled as seeded (in Chinese), the
 * console's label in the user's language; otherwise the label as the project's metadata gives it.
 */
export function useOptionLabel(): (name: string, value: string, label: string) => string {
  const { t, i18n } = useTranslation();
  return useCallback(
    (name: string, value: string, label: string) =>
      SEEDED_OPTION_LABELS[name]?.[value] === label && i18n.exists(`customers.options.${name}.${value}`)
        ? t(`customers.options.${name}.${value}` as 'customers.fields.name')
        : label,
    [t, i18n],
  );
}
