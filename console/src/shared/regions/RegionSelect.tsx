import { Input, Select } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { REGIONS, regionName } from './regions.ts';

interface Props {
  value?: string;
  onChange?: (value: string) => void;
  id?: string;
  disabled?: boolean;
}

/** A project's region: every region by its name in the user's language, searchable by name or code. */
export function RegionSelect({ value, onChange, id, disabled }: Props) {
  const { i18n } = useTranslation();
  const options = useMemo(
    () =>
      REGIONS.map((code) => ({ value: code, label: `${regionName(code, i18n.language)} (${code})` })).sort((a, b) =>
        a.label.localeCompare(b.label, i18n.language),
      ),
    [i18n.language],
  );
  // Read only: a disabled field of its own (a disabled Select's text is drawn too faint to read, and not marked disabled).
  if (disabled) return <Input id={id} disabled value={options.find((o) => o.value === value)?.label ?? value ?? ''} />;
  return (
    <Select
      id={id}
      value={value}
      onChange={onChange}
      disabled={disabled}
      showSearch
      optionFilterProp="label"
      options={options}
      style={{ width: '100%' }}
    />
  );
}
