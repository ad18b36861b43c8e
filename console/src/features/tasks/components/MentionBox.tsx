import { Mentions, type MentionsProps } from 'antd';
import { useMemo } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { Person } from '../model.ts';
import { mentionText } from '../noteText.ts';

/** The longest note the server takes (characters). */
const MAX_NOTE = 10_000;

/**
 * A note's text box with the mention picker: typing @ lists the members who may see the customer
 * (by name, filtered as typed); picking one writes the server's `@[name](member:id)`. Takes the
 * form's value and onChange like any field.
 */
export function MentionBox({ people, ...rest }: { people: readonly Person[] } & Omit<MentionsProps, 'options'>) {
  const { t } = useLazyTexts('tasks');
  const noOne: string = t('tasks.notes.noOneToMention');
  const options = useMemo(
    () => people.map((p) => ({ key: String(p.id), value: mentionText(p.name, p.id).slice(1), label: p.name })),
    [people],
  );
  const names = useMemo(() => new Map(options.map((o) => [o.value, o.label.toLowerCase()])), [options]);
  return (
    <Mentions
      autoSize={{ minRows: 2, maxRows: 10 }}
      maxLength={MAX_NOTE}
      options={options}
      filterOption={(input, option) => (names.get(option.value ?? '') ?? '').includes(input.toLowerCase())}
      notFoundContent={noOne}
      {...rest}
    />
  );
}
