import { Select } from 'antd';
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
